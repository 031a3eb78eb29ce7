//! The `skilldex` binary: all behaviour lives in the library's `cli` module.

/// mimalloc rather than the system allocator: see the note in `Cargo.toml`.
/// Only the binary chooses it; the library leaves that to its users.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    skilldex::cli::run()
}

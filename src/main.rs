//! The `skilldex` binary: the command line over the library. Everything
//! that parses flags, prints or picks an exit code lives in `cli/`; the
//! library (`skilldex::`) never does.

mod cli;

/// mimalloc rather than the system allocator: see the note in `Cargo.toml`.
/// Only the binary chooses it; the library leaves that to its users.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    cli::run()
}

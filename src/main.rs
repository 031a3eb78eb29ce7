//! The `skilldex` binary: the command line over the library. Everything
//! that parses flags, prints or picks an exit code lives in `cli/`, built
//! into the library only with the `cli` feature; the rest of the library
//! never prints or exits.

/// mimalloc rather than the system allocator: see the note in `Cargo.toml`.
/// Only the binary chooses it; the library leaves that to its users.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    skilldex::run_cli()
}

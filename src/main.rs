//! The `skilldex` binary: all behaviour lives in the library's `cli` module.

fn main() -> std::process::ExitCode {
    skilldex::cli::run()
}

//! `atomport`: the command-line interface, thin over the library (see
//! [`cli`]).

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}

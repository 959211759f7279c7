use unobserved::platform::mode::{detect, Mode};

fn main() {
    let args: Vec<_> = std::env::args_os().collect();
    let code = match detect(&args) {
        Mode::Native(caller) => unobserved::native::main(caller),
        Mode::Cli => unobserved::cli::main(),
    };
    std::process::exit(code);
}

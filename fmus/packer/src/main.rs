//! `cargo pack-fmus [--out <dir>]`: builds every test FMU crate in release mode and writes
//! `<Model>.fmu` files (default: `fmus/packed/` in the workspace, and the copies the SSP
//! examples use in `projects/ssp/fmus/`).

use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: cargo pack-fmus [--out <dir>]\n\
    Builds the test FMU crates in release mode and packs one <Model>.fmu per model\n\
    into <dir> (default: fmus/packed in the workspace).";

fn main() -> ExitCode {
    let root = fmu_packer::workspace_root();
    let mut out_dir = fmu_packer::default_out_dir(&root);
    let mut args = std::env::args_os().skip(1);
    while let Some(arg) = args.next() {
        match arg.to_str() {
            Some("--out") => match args.next() {
                Some(dir) => out_dir = PathBuf::from(dir),
                None => return usage_error("--out needs a directory"),
            },
            Some("-h" | "--help") => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            _ => return usage_error(&format!("unexpected argument {}", arg.to_string_lossy())),
        }
    }
    let default_out = out_dir == fmu_packer::default_out_dir(&root);
    let packed = fmu_packer::build_and_pack(&root, &out_dir).and_then(|paths| {
        if default_out {
            let to = root.join(fmu_packer::SSP_EXAMPLE_DIR);
            fmu_packer::copy_ssp_example_fmus(&out_dir, &to)?;
        }
        Ok(paths)
    });
    match packed {
        Ok(paths) => {
            for path in paths {
                println!("{}", path.display());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("pack-fmus: {e}");
            ExitCode::FAILURE
        }
    }
}

fn usage_error(message: &str) -> ExitCode {
    eprintln!("pack-fmus: {message}\n{USAGE}");
    ExitCode::from(2)
}

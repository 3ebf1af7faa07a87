//! Compiles the C shim that formats the variadic FMI logger message (see `src/logger.c`).

fn main() {
    println!("cargo:rerun-if-changed=src/logger.c");
    cc::Build::new()
        .file("src/logger.c")
        .warnings(true)
        .extra_warnings(true)
        .compile("mastersim_fmi_logger");
}

//! The `schema` command installed alone (`cargo install schema-core
//! --features cli`): `audit` and `pull`, which need no models. The commands
//! that need them (`plan`, `sync`, `verify`, `repair`, `migrate`,
//! `diagram`) say how to get them: a binary of your own whose `main` awaits
//! `schema_core::cli::run(&models::schema())` (see `schema_core::cli`).

use std::process::ExitCode;

fn main() -> ExitCode {
    // One thread is all a command needs; the library brings no runtime of
    // its own, so the binary builds one.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build();
    match runtime {
        Ok(runtime) => runtime.block_on(schema_core::cli::run(&schema_core::Schema::new())),
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            ExitCode::from(3)
        }
    }
}

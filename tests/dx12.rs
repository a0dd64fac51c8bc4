//! DX12 for real: where the DX12 kit is installed (`scripts/setup-dx12`:
//! Wine, vkd3d, FXC, Mesa 25's lavapipe, the mingw cross tools), the
//! Windows build of atomport runs under Wine on wgpu's DX12 backend:
//! `scripts/test-dx12` runs `info`, the full `validate` matrix, every golden
//! and demo kernel compared with the Vulkan run of the same inputs, and the
//! four demos, and fails on any failure. Without the kit the test says why
//! it skipped (a fresh machine passes the README's test command).

mod common;

use std::process::Command;

#[test]
fn the_windows_build_runs_everything_on_dx12_under_wine() {
    let kit = match common::dx12_kit() {
        Ok(k) => k,
        Err(why) => {
            println!("skipping DX12: {why}");
            return;
        }
    };
    let root = env!("CARGO_MANIFEST_DIR");
    let o = Command::new(format!("{root}/scripts/test-dx12"))
        .env("ATOMPORT_DX12_KIT", &kit)
        .current_dir(root)
        .output()
        .expect("scripts/test-dx12 runs");
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    println!("{stderr}{stdout}");
    assert!(
        o.status.success(),
        "scripts/test-dx12 failed (exit {:?}):\n{stderr}{stdout}",
        o.status.code()
    );
    for line in [
        "dx12: kernels",
        "dx12: demos 4 passed, 0 failed",
        "dx12: validate",
    ] {
        assert!(stdout.contains(line), "`{line}` in:\n{stdout}");
    }
}

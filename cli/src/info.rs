//! `atomport info`: every adapter with its features and limits.

use atomport::{BackendChoice, ContextOptions, Error};

use super::emit;

pub fn info(backend: Option<BackendChoice>, json: bool) -> atomport::Result<()> {
    let backend = match backend {
        Some(b) => b,
        None => ContextOptions::from_env()?.backend,
    };
    let list = atomport::adapters(backend);
    let mut o = String::new();
    if json {
        outln!(
            o,
            "{}",
            serde_json::to_string_pretty(&list).expect("adapter list serializes")
        );
        return emit(&o);
    }
    if list.is_empty() {
        return Err(Error::NoAdapter {
            tried: backend.name().into(),
            filter: String::new(),
        });
    }
    for (i, a) in list.iter().enumerate() {
        if i > 0 {
            outln!(o);
        }
        outln!(o, "{} ({})", a.name, a.backend);
        outln!(o, "  device type: {}", a.device_type);
        outln!(o, "  driver:      {} {}", a.driver, a.driver_info);
        outln!(
            o,
            "  features:    {}",
            if a.features.is_empty() {
                "none of the optional features kernels may need".to_string()
            } else {
                a.features.join(", ")
            }
        );
        outln!(
            o,
            "  max_storage_buffer_binding_size:       {}",
            a.limits.max_storage_buffer_binding_size
        );
        outln!(
            o,
            "  max_compute_invocations_per_workgroup: {}",
            a.limits.max_compute_invocations_per_workgroup
        );
        outln!(
            o,
            "  max_compute_workgroups_per_dimension:  {}",
            a.limits.max_compute_workgroups_per_dimension
        );
    }
    emit(&o)
}

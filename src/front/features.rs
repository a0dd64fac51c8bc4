//! What a naga module needs of a device: the optional wgpu features its
//! types and code ask for, found with as few validations as the module
//! allows.

use naga::{ImageClass, ScalarKind, StorageAccess, TypeInner};

use crate::{Error, Result, guard};

/// A module validated, with the optional device features it needs.
pub(crate) struct Validated {
    /// naga's analysis of the module.
    pub info: naga::valid::ModuleInfo,
    /// The optional device features the module needs: a device opened with
    /// them accepts it.
    pub features: wgt::Features,
    /// Whether the module validated with only those features' capabilities
    /// (else [`accepted_with`] says whether it does).
    pub accepted: bool,
}

/// Validates a module (errors as [`super::validate`] says them) and finds
/// the features it needs. The usual module takes one validation, with only
/// the capabilities the features its types show grant; one the types do
/// not tell in full (subgroup operations, 64-bit values only in
/// expressions) takes one with every capability and one per capability
/// the code may need ([`accepted_with`] then checks the features found).
pub(crate) fn validate(
    module: &naga::Module,
    source: Option<&str>,
    name: &str,
) -> Result<Validated> {
    let features = features_of_types(module);
    if let Some(info) = validates_with(module, features) {
        return Ok(Validated {
            info,
            features,
            accepted: true,
        });
    }
    let info = super::validate(module, source, name)?;
    Ok(Validated {
        info,
        features: features_beyond_types(module, features),
        accepted: false,
    })
}

/// The module's info where it validates with only the capabilities wgpu
/// grants a device opened with `features`.
fn validates_with(
    module: &naga::Module,
    features: wgt::Features,
) -> Option<naga::valid::ModuleInfo> {
    let caps =
        wgpu_naga_bridge::features_to_naga_capabilities(features, wgt::DownlevelFlags::all());
    guard("naga's validator", || {
        Ok(
            naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps)
                .validate(module)
                .ok(),
        )
    })
    .ok()
    .flatten()
}

/// Checks that the module validates with only the capabilities wgpu grants
/// a device opened with `features` (what the runtime will ask for): a
/// translation naga accepts must be one the device accepts too.
pub(crate) fn accepted_with(
    module: &naga::Module,
    features: wgt::Features,
    name: &str,
) -> Result<()> {
    let caps =
        wgpu_naga_bridge::features_to_naga_capabilities(features, wgt::DownlevelFlags::all());
    guard("naga's validator", || {
        naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps)
            .validate(module)
            .map(|_| ())
            .map_err(|e| {
                let text = crate::error::with_causes(e.as_inner());
                Error::Unsupported(format!(
                    "{name}: the WGSL needs more of a device than the features a kernel asks for ({}) give: {text}",
                    crate::error::describe_features(features)
                ))
            })
    })
}

/// The optional device features the module's types show: 64-bit and
/// float atomics, texture atomics, the 64-bit / 16-bit scalar types and
/// binding arrays (with the non-uniform indexing features where naga's
/// uniformity analysis finds an index varying within a workgroup).
fn features_of_types(module: &naga::Module) -> wgt::Features {
    use wgt::Features as F;
    let mut f = F::empty();
    let mut int64_atomics = false;
    for (_, ty) in module.types.iter() {
        match ty.inner {
            TypeInner::Atomic(s) if s.width == 8 => int64_atomics = true,
            TypeInner::Atomic(s) if s.kind == ScalarKind::Float => f |= F::SHADER_FLOAT32_ATOMIC,
            TypeInner::Scalar(s) | TypeInner::Vector { scalar: s, .. } => match (s.kind, s.width) {
                (ScalarKind::Sint | ScalarKind::Uint, 8) => f |= F::SHADER_INT64,
                (ScalarKind::Float, 8) => f |= F::SHADER_F64,
                (ScalarKind::Float, 2) => f |= F::SHADER_F16,
                _ => {}
            },
            TypeInner::Image {
                class: ImageClass::Storage { access, .. },
                ..
            } if access.contains(StorageAccess::ATOMIC) => f |= F::TEXTURE_ATOMIC,
            _ => {}
        }
    }
    // Whether the module validates with every capability but `cap`.
    // Binding arrays: of textures and samplers, of storage textures; the
    // non-uniform indexing features only where naga's uniformity analysis
    // finds an index varying within a workgroup.
    let arrays: Vec<&TypeInner> = module
        .types
        .iter()
        .filter_map(|(_, t)| match t.inner {
            TypeInner::BindingArray { base, .. } => Some(&module.types[base].inner),
            _ => None,
        })
        .collect();
    if !arrays.is_empty() {
        f |= F::TEXTURE_BINDING_ARRAY;
        let storage = |t: &&TypeInner| {
            matches!(
                t,
                TypeInner::Image {
                    class: ImageClass::Storage { .. },
                    ..
                }
            )
        };
        if arrays.iter().any(storage) {
            f |= F::STORAGE_RESOURCE_BINDING_ARRAY;
        }
        // Arrays of storage buffers.
        if arrays.iter().any(|t| matches!(t, TypeInner::Struct { .. })) {
            // naga's SPIR-V writer marks every index into one non-uniform,
            // which Vulkan takes only with the non-uniform feature enabled.
            f |= F::BUFFER_BINDING_ARRAY
                | F::STORAGE_RESOURCE_BINDING_ARRAY
                | F::SAMPLED_TEXTURE_AND_STORAGE_BUFFER_ARRAY_NON_UNIFORM_INDEXING;
            if arrays.iter().all(|t| matches!(t, TypeInner::Struct { .. })) {
                f.remove(F::TEXTURE_BINDING_ARRAY);
            }
        }
        for (cap, feature) in [
            (
                naga::valid::Capabilities::TEXTURE_AND_SAMPLER_BINDING_ARRAY_NON_UNIFORM_INDEXING,
                F::SAMPLED_TEXTURE_AND_STORAGE_BUFFER_ARRAY_NON_UNIFORM_INDEXING,
            ),
            (
                naga::valid::Capabilities::STORAGE_TEXTURE_BINDING_ARRAY_NON_UNIFORM_INDEXING,
                F::STORAGE_TEXTURE_ARRAY_NON_UNIFORM_INDEXING,
            ),
            (
                naga::valid::Capabilities::STORAGE_BUFFER_BINDING_ARRAY_NON_UNIFORM_INDEXING,
                F::SAMPLED_TEXTURE_AND_STORAGE_BUFFER_ARRAY_NON_UNIFORM_INDEXING,
            ),
        ] {
            if !holds_without(module, cap) {
                f |= feature;
            }
        }
    }
    if int64_atomics {
        f |= F::SHADER_INT64;
        // min/max with unused results need less of the adapter than the rest:
        // ask naga's validator whether the module holds without ALL_OPS.
        let only_min_max = guard("naga's validator", || {
            Ok(naga::valid::Validator::new(
                naga::valid::ValidationFlags::all(),
                naga::valid::Capabilities::all()
                    - naga::valid::Capabilities::SHADER_INT64_ATOMIC_ALL_OPS,
            )
            .validate(module)
            .is_ok())
        })
        .unwrap_or(false);
        f |= if only_min_max {
            F::SHADER_INT64_ATOMIC_MIN_MAX
        } else {
            F::SHADER_INT64_ATOMIC_ALL_OPS
        };
    }
    f
}

/// `f` (the features the types show) with those only the code shows:
/// subgroup operations and 64-bit values in expressions alone (a
/// word-addressed `uint64_t` assembled from two words) leave no type
/// behind. Each is asked about by validating without its capability.
fn features_beyond_types(module: &naga::Module, mut f: wgt::Features) -> wgt::Features {
    use naga::valid::Capabilities as C;
    use wgt::Features as F;
    for (cap, feature) in [
        (C::SUBGROUP, F::SUBGROUP),
        (C::SUBGROUP_BARRIER, F::SUBGROUP_BARRIER),
        (C::SHADER_INT64, F::SHADER_INT64),
        (C::FLOAT64, F::SHADER_F64),
    ] {
        if !f.contains(feature) && !holds_without(module, cap) {
            f |= feature;
        }
    }
    f
}

/// Whether the module validates with every capability but `cap`.
fn holds_without(module: &naga::Module, cap: naga::valid::Capabilities) -> bool {
    guard("naga's validator", || {
        Ok(naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all() - cap,
        )
        .validate(module)
        .is_ok())
    })
    .unwrap_or(true)
}

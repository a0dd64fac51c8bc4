//! IR pass: every storage image gets the access its uses need.
//!
//! GLSL declares an image without `readonly` or `writeonly` as often as
//! with, and naga's reader makes such an image `read_write`. WebGPU (and
//! wgpu on every backend) binds only the r32 formats read-write, so
//! `layout(rgba16f) uniform image2D color;` that the shader only stores to
//! would be refused at pipeline creation. From its uses, it is `write`:
//! `imageLoad` needs `read`, `imageStore` needs `write`, `imageSize` neither.
//! An image passed to a function or used atomically keeps what it has.

use rustc_hash::FxHashSet as HashSet;

use naga::{Expression as E, Handle, ImageClass, Statement as S, StorageAccess, TypeInner};

use crate::lower::ir::visit_blocks;

/// Narrows each storage image's access to its uses; returns how many
/// images changed.
pub fn storage_image_access(module: &mut naga::Module) -> usize {
    let mut read = HashSet::default();
    let mut written = HashSet::default();
    let mut kept = HashSet::default();
    let functions =
        crate::lower::ir::functions_mut(&mut module.functions, &mut module.entry_points);
    for f in functions {
        let exprs = &f.expressions;
        for (_, e) in exprs.iter() {
            if let E::ImageLoad { image, .. } = *e {
                read.extend(root(exprs, image));
            }
        }
        visit_blocks(&mut f.body, &mut |block| {
            for st in block.iter() {
                match st {
                    S::ImageStore { image, .. } => written.extend(root(exprs, *image)),
                    S::ImageAtomic { image, .. } => kept.extend(root(exprs, *image)),
                    S::Call { arguments, .. } => {
                        kept.extend(arguments.iter().filter_map(|&a| root(exprs, a)));
                    }
                    _ => {}
                }
            }
        });
    }
    let mut changed = 0;
    let handles: Vec<_> = module.global_variables.iter().map(|(h, _)| h).collect();
    for g in handles {
        if kept.contains(&g) {
            continue;
        }
        let mut access = StorageAccess::empty();
        if read.contains(&g) {
            access |= StorageAccess::LOAD;
        }
        if written.contains(&g) {
            access |= StorageAccess::STORE;
        }
        if access.is_empty() {
            continue;
        }
        let ty = module.global_variables[g].ty;
        if let Some(narrowed) = with_access(&mut module.types, ty, access) {
            module.global_variables[g].ty = narrowed;
            changed += 1;
        }
    }
    changed
}

/// The global variable an image expression reads (through binding-array
/// elements).
fn root(exprs: &naga::Arena<E>, mut h: Handle<E>) -> Option<Handle<naga::GlobalVariable>> {
    loop {
        match exprs[h] {
            E::GlobalVariable(g) => return Some(g),
            E::Access { base, .. } | E::AccessIndex { base, .. } => h = base,
            _ => return None,
        }
    }
}

/// `ty` (a storage image, or a binding array of them) with `access`, where
/// that differs from what it has.
fn with_access(
    types: &mut naga::UniqueArena<naga::Type>,
    ty: Handle<naga::Type>,
    access: StorageAccess,
) -> Option<Handle<naga::Type>> {
    let span = types.get_span(ty);
    match types[ty].inner {
        TypeInner::Image {
            dim,
            arrayed,
            class:
                ImageClass::Storage {
                    format,
                    access: old,
                },
        } if old != access && old.contains(access) => Some(types.insert(
            naga::Type {
                name: None,
                inner: TypeInner::Image {
                    dim,
                    arrayed,
                    class: ImageClass::Storage { format, access },
                },
            },
            span,
        )),
        TypeInner::BindingArray { base, size } => {
            let base = with_access(types, base, access)?;
            Some(types.insert(
                naga::Type {
                    name: None,
                    inner: TypeInner::BindingArray { base, size },
                },
                span,
            ))
        }
        _ => None,
    }
}

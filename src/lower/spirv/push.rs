//! Push constants (`layout(push_constant) uniform P { … } p;`): WebGPU has
//! none, so the block becomes a buffer at a free binding of descriptor set
//! 0, which the host fills by member name ([`crate::Uniforms::push`],
//! `--push NAME=VALUE`) as it would set the push constants.
//!
//! The block keeps its own layout (std430-like offsets, `offset =`
//! qualifiers), which SPIR-V states explicitly. A block of scalars, vectors
//! and matrices fits WGSL's uniform layout and becomes a uniform buffer; a
//! block holding an array or a struct may not (uniform arrays step by 16
//! bytes), and becomes a read-only storage buffer, whose layout takes it as
//! it is. Either way the binding map marks it `"push_constant": true`.
//!
//! A uniform buffer written with `queue.write_buffer` is what a wgpu
//! program sets per dispatch by hand; WebGPU has no push constants to map
//! onto, and wgpu's native ones (immediates) exist on some backends only.

use rspirv::dr::Operand;
use rspirv::spirv::{Decoration, Op, StorageClass, Word};

use crate::Result;
use crate::lower::model::{Model, id};

/// A push-constant block made a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PushBlock {
    /// Its descriptor set (0).
    pub group: u32,
    /// Its binding.
    pub binding: u32,
}

/// Moves every push-constant block to a buffer binding; returns where.
pub fn push_constants_to_buffers(m: &mut Model) -> Result<Vec<PushBlock>> {
    let pushes: Vec<(Word, Word)> = m
        .variables()
        .filter(|(_, class, _)| *class == StorageClass::PushConstant)
        .map(|(v, _, pointee)| (v, pointee))
        .collect();
    let mut free = m.free_bindings();
    let mut out = Vec::new();
    for (var, block) in pushes {
        let class = if fits_uniform_layout(m, block) {
            StorageClass::Uniform
        } else {
            StorageClass::StorageBuffer
        };
        let ptr = m.pointer_to(class, block);
        let set = crate::lower::spirv::arrays::set_for_uniforms(m, 0);
        let binding = free.take(set)?;
        retype(m, var, ptr, class);
        m.decorate(var, Decoration::DescriptorSet, &[set]);
        m.decorate(var, Decoration::Binding, &[binding]);
        if class == StorageClass::StorageBuffer {
            m.decorate(var, Decoration::NonWritable, &[]);
        }
        out.push(PushBlock {
            group: set,
            binding,
        });
    }
    if !out.is_empty() {
        m.retype_access_chains()?;
    }
    Ok(out)
}

/// Whether the block holds only scalars, vectors and matrices: what WGSL's
/// uniform layout places where the block's own offsets put them. A buffer
/// reference is a scalar too (a `uint64_t` once the reference pass is done):
/// a pass's addresses in push constants stay a uniform buffer, which
/// llvmpipe reads much faster than a storage one.
fn fits_uniform_layout(m: &Model, block: Word) -> bool {
    let Some(t) = m.global(block) else {
        return false;
    };
    t.operands.iter().filter_map(id).all(|member| {
        let reference = m.global(member).is_some_and(|p| {
            p.class.opcode == Op::TypePointer
                && p.operands.first()
                    == Some(&Operand::StorageClass(StorageClass::PhysicalStorageBuffer))
        });
        reference
            || matches!(
                m.op_of(member),
                Some(Op::TypeInt | Op::TypeFloat | Op::TypeBool | Op::TypeVector | Op::TypeMatrix)
            )
    })
}

/// Gives the variable its new pointer type and storage class.
fn retype(m: &mut Model, var: Word, ptr: Word, class: StorageClass) {
    let module = m.module_mut();
    for inst in module.types_global_values.iter_mut() {
        if inst.result_id == Some(var) {
            inst.result_type = Some(ptr);
            inst.operands[0] = Operand::StorageClass(class);
        }
    }
}

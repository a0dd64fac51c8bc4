//! Find-or-insert on a [`Model`]: types, constants and globals, found when
//! the module has them and appended (keeping the index) when it does not.

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Op, StorageClass, Word};

use super::{Model, is_64_bit, literal};

impl Model {
    /// Appends a global, keeping the index.
    pub(crate) fn push_global(&mut self, inst: Instruction) {
        let at = self.module.types_global_values.len();
        if let Some(ix) = self.index.get_mut() {
            ix.add_global(at, &inst);
        }
        self.module.types_global_values.push(inst);
    }

    /// Appends a new global of `op` with a fresh id; returns it.
    pub(crate) fn add_global(&mut self, op: Op, ty: Option<Word>, operands: Vec<Operand>) -> Word {
        let r = self.fresh();
        self.push_global(Instruction::new(op, ty, Some(r), operands));
        r
    }

    pub(super) fn intern(&mut self, op: Op, ty: Option<Word>, operands: Vec<Operand>) -> Word {
        match self.find(op, ty, &operands) {
            Some(t) => t,
            None => self.add_global(op, ty, operands),
        }
    }

    /// `OpTypeInt width signed`.
    pub(crate) fn int_type(&mut self, width: u32, signed: bool) -> Word {
        self.intern(
            Op::TypeInt,
            None,
            vec![
                Operand::LiteralBit32(width),
                Operand::LiteralBit32(signed.into()),
            ],
        )
    }

    /// `OpTypeInt 32 0`.
    pub(crate) fn uint(&mut self) -> Word {
        self.int_type(32, false)
    }

    /// `OpTypeFloat width`.
    pub(crate) fn float_type(&mut self, width: u32) -> Word {
        self.intern(Op::TypeFloat, None, vec![Operand::LiteralBit32(width)])
    }

    /// `OpTypeBool`.
    pub(crate) fn bool_type(&mut self) -> Word {
        self.intern(Op::TypeBool, None, vec![])
    }

    /// `OpTypeVoid`.
    pub(crate) fn void_type(&mut self) -> Word {
        self.intern(Op::TypeVoid, None, vec![])
    }

    /// `OpTypeSampler`.
    pub(crate) fn sampler_type(&mut self) -> Word {
        self.intern(Op::TypeSampler, None, vec![])
    }

    /// `OpTypeVector component n`.
    pub(crate) fn vector_type(&mut self, component: Word, n: u32) -> Word {
        self.intern(
            Op::TypeVector,
            None,
            vec![Operand::IdRef(component), Operand::LiteralBit32(n)],
        )
    }

    /// The pointer type to `pointee` in `class`.
    pub(crate) fn pointer_to(&mut self, class: StorageClass, pointee: Word) -> Word {
        self.intern(
            Op::TypePointer,
            None,
            vec![Operand::StorageClass(class), Operand::IdRef(pointee)],
        )
    }

    /// A new private variable of type `ty` initialized by constant `init`:
    /// a value read at run time, which WGSL never evaluates as a constant.
    pub(crate) fn private_variable(&mut self, ty: Word, init: Word) -> Word {
        let ptr = self.pointer_to(StorageClass::Private, ty);
        self.add_global(
            Op::Variable,
            Some(ptr),
            vec![
                Operand::StorageClass(StorageClass::Private),
                Operand::IdRef(init),
            ],
        )
    }

    /// The constant of scalar type `ty` with `bits` (64 bits wide for a
    /// 64-bit type).
    pub(crate) fn constant(&mut self, ty: Word, bits: u64) -> Word {
        let wide = self.global(ty).is_some_and(is_64_bit);
        self.intern(Op::Constant, Some(ty), vec![literal(bits, wide)])
    }

    /// The `uint` constant `v`.
    pub(crate) fn uint_constant(&mut self, v: u32) -> Word {
        let uint = self.uint();
        self.constant(uint, v.into())
    }

    /// `OpConstantTrue` or `OpConstantFalse`.
    pub(crate) fn bool_constant(&mut self, value: bool) -> Word {
        let b = self.bool_type();
        let op = if value {
            Op::ConstantTrue
        } else {
            Op::ConstantFalse
        };
        self.intern(op, Some(b), vec![])
    }

    /// The id of the `GLSL.std.450` import, added when missing.
    pub(crate) fn glsl_std_450(&mut self) -> Word {
        if let Some(i) = self.module.ext_inst_imports.iter().find(
            |i| matches!(i.operands.first(), Some(Operand::LiteralString(s)) if s == "GLSL.std.450"),
        ) {
            return i.result_id.unwrap_or(0);
        }
        let id = self.fresh();
        self.module.ext_inst_imports.push(Instruction::new(
            Op::ExtInstImport,
            None,
            Some(id),
            vec![Operand::LiteralString("GLSL.std.450".into())],
        ));
        id
    }
}

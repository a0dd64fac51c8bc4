//! [`Emit`]: the instructions a rewrite emits in place of one, with the
//! constants and fresh ids it needs.

use rustc_hash::FxHashMap as HashMap;

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Op, Word};

use super::{Model, is_64_bit, literal, with_ids};

/// What [`Model::rewrite`] gives each instruction's rewrite: the model to
/// read (as it was before the walk), fresh ids, and the output of the block.
pub(crate) struct Emit<'m> {
    /// The model, unchanged during the walk.
    pub(crate) m: &'m Model,
    /// The instructions that replace the one being rewritten.
    pub(crate) out: Vec<Instruction>,
    /// Constants made during the walk, by (type, bits; `None` for null).
    pub(super) constants: &'m mut HashMap<(Word, Option<u64>), Word>,
    /// Their definitions, appended to the globals after the walk.
    pub(super) globals: &'m mut Vec<Instruction>,
}

impl Emit<'_> {
    /// A fresh id.
    pub(crate) fn fresh(&self) -> Word {
        self.m.fresh()
    }

    /// Emits `op` of type `ty` on id operands; returns its result.
    pub(crate) fn op(&mut self, op: Op, ty: Word, args: &[Word]) -> Word {
        let r = self.fresh();
        self.out.push(with_ids(op, Some(ty), Some(r), args));
        r
    }

    /// Emits extended instruction `which` of the import `set` on `args`;
    /// returns its result.
    pub(crate) fn ext_inst(&mut self, set: Word, ty: Word, which: u32, args: &[Word]) -> Word {
        let r = self.fresh();
        let mut operands = vec![Operand::IdRef(set), Operand::LiteralExtInstInteger(which)];
        operands.extend(args.iter().map(|&a| Operand::IdRef(a)));
        self.out
            .push(Instruction::new(Op::ExtInst, Some(ty), Some(r), operands));
        r
    }

    /// Emits `OpCompositeExtract` of component `k`; returns its result.
    pub(crate) fn extract(&mut self, ty: Word, from: Word, k: u32) -> Word {
        let r = self.fresh();
        self.out.push(Instruction::new(
            Op::CompositeExtract,
            Some(ty),
            Some(r),
            vec![Operand::IdRef(from), Operand::LiteralBit32(k)],
        ));
        r
    }

    /// Emits an instruction as it is.
    pub(crate) fn push(&mut self, inst: Instruction) {
        self.out.push(inst);
    }

    /// The constant of type `ty` (a scalar) with `bits`, found in the model
    /// or made for the walk.
    pub(crate) fn constant(&mut self, ty: Word, bits: u64) -> Word {
        if let Some(c) = self.m.find_constant(ty, bits) {
            return c;
        }
        if let Some(&c) = self.constants.get(&(ty, Some(bits))) {
            return c;
        }
        let c = self.m.fresh();
        let wide = self.m.global(ty).is_some_and(is_64_bit);
        self.globals.push(Instruction::new(
            Op::Constant,
            Some(ty),
            Some(c),
            vec![literal(bits, wide)],
        ));
        self.constants.insert((ty, Some(bits)), c);
        c
    }

    /// The all-zero value of `ty` (`OpConstantNull`), made for the walk.
    pub(crate) fn null(&mut self, ty: Word) -> Word {
        if let Some(&c) = self.constants.get(&(ty, None)) {
            return c;
        }
        let c = self.m.fresh();
        self.globals.push(Instruction::new(
            Op::ConstantNull,
            Some(ty),
            Some(c),
            vec![],
        ));
        self.constants.insert((ty, None), c);
        c
    }
}

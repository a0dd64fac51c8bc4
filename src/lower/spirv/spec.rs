//! SPIR-V pass: specialization constants set by the caller, and folded to
//! constants where naga could not read them.
//!
//! naga reads plain `OpSpecConstant`s as WGSL `override`s, but rejects
//! `OpSpecConstantOp` (`const uint N = BINS * 2u;`) and an array whose
//! length is one (`shared vec4 tile[TILE];`), and ignores a workgroup
//! size made of spec constants (`local_size_x_id`, as a `WorkgroupSize`
//! built-in or a `LocalSizeId` mode). When a module has any, every
//! specialization constant becomes a constant with its value, every
//! `OpSpecConstantOp` form SPIR-V allows in a shader (arithmetic, bitwise,
//! logical, comparisons, `Select`, conversions, `CompositeExtract`,
//! `CompositeInsert`, `VectorShuffle`) is evaluated here on 8- to 64-bit
//! integers, booleans and vectors of them, and the workgroup size is written
//! into the entry point's `LocalSize`.
//!
//! Values the caller gives ([`Specialization`]) replace the defaults first,
//! so they hold whether the constant is folded or stays an override.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{BuiltIn, Decoration, ExecutionMode, Op, Word};

use crate::front::{SpecKey, Specialization};
use crate::lower::model::{Model, id};
use crate::lower::spirv::compat::LocalSizeIds;
use crate::scalar::parse_int;
use crate::{Error, Result};

/// The type of a scalar constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scalar {
    Bool,
    Int { width: u32, signed: bool },
    Float { width: u32 },
}

impl Scalar {
    fn width(self) -> u32 {
        match self {
            Scalar::Bool => 1,
            Scalar::Int { width, .. } | Scalar::Float { width } => width,
        }
    }
}

/// A constant's value: bit patterns (booleans as 0 and 1), or components.
#[derive(Clone, Debug, PartialEq)]
enum Val {
    Bits(u64),
    Parts(Vec<Val>),
}

/// The module's types, for evaluation.
struct Types<'m>(&'m Model);

impl Types<'_> {
    fn global(&self, ty: Word) -> Option<&Instruction> {
        self.0.global(ty)
    }

    fn result_type(&self, v: Word) -> Option<Word> {
        self.0.result_type(v)
    }

    fn scalar(&self, ty: Word) -> Option<Scalar> {
        let t = self.global(ty)?;
        match (t.class.opcode, t.operands.as_slice()) {
            (Op::TypeBool, _) => Some(Scalar::Bool),
            (Op::TypeInt, [Operand::LiteralBit32(w), Operand::LiteralBit32(s)]) => {
                Some(Scalar::Int {
                    width: *w,
                    signed: *s != 0,
                })
            }
            (Op::TypeFloat, [Operand::LiteralBit32(w), ..]) => Some(Scalar::Float { width: *w }),
            _ => None,
        }
    }

    /// The type of member `k` of a composite type.
    fn member(&self, ty: Word, k: u32) -> Option<Word> {
        let t = self.global(ty)?;
        match t.class.opcode {
            Op::TypeStruct => t.operands.get(k as usize).and_then(id),
            Op::TypeVector | Op::TypeMatrix | Op::TypeArray => t.operands.first().and_then(id),
            _ => None,
        }
    }
}

fn mask(bits: u64, width: u32) -> u64 {
    if width >= 64 {
        bits
    } else {
        bits & ((1u64 << width) - 1)
    }
}

fn sext(bits: u64, width: u32) -> i64 {
    if width >= 64 || width == 0 {
        bits as i64
    } else {
        let shift = 64 - width;
        ((bits << shift) as i64) >> shift
    }
}

/// Sets the caller's values on the module's specialization constants.
pub fn apply_specializations(m: &mut Model, specs: &[Specialization]) -> Result<()> {
    if specs.is_empty() {
        return Ok(());
    }
    let mut by_id: Vec<(u32, Word)> = m
        .module()
        .annotations
        .iter()
        .filter_map(|a| match a.operands.as_slice() {
            [
                Operand::IdRef(t),
                Operand::Decoration(Decoration::SpecId),
                Operand::LiteralBit32(n),
            ] => Some((*n, *t)),
            _ => None,
        })
        .collect();
    by_id.sort_unstable();
    let mut sets: Vec<(Word, String, &str)> = Vec::new();
    for s in specs {
        let label = match &s.key {
            SpecKey::Id(n) => format!("specialization constant {n} (--spec {n}={})", s.value),
            SpecKey::Name(name) => {
                format!(
                    "specialization constant `{name}` (--spec {name}={})",
                    s.value
                )
            }
        };
        let targets = targets(m, &by_id, &s.key);
        if targets.is_empty() {
            return Err(Error::UnknownName(format!(
                "the shader has no {label}; {}",
                available(m, &by_id)
            )));
        }
        for target in targets {
            sets.push((target, label.clone(), &s.value));
        }
    }
    for (target, label, value) in sets {
        if let Some(inst) = specialized(m, target, &label, value)? {
            m.replace_global(target, inst);
        }
    }
    Ok(())
}

/// The spec constants a key names: glslang may give one constant_id to
/// several (the workgroup size's and the shader's own), and each gets the value.
fn targets(m: &Model, by_id: &[(u32, Word)], key: &SpecKey) -> Vec<Word> {
    let ids: Vec<u32> = match key {
        SpecKey::Id(n) => vec![*n],
        SpecKey::Name(name) => by_id
            .iter()
            .filter(|(_, t)| m.name(*t) == Some(name.as_str()))
            .map(|&(n, _)| n)
            .collect(),
    };
    by_id
        .iter()
        .filter(|(n, _)| ids.contains(n))
        .map(|&(_, t)| t)
        .collect()
}

/// The spec constants a shader has, for a message: `0 (BINS), 1`.
fn available(m: &Model, by_id: &[(u32, Word)]) -> String {
    if by_id.is_empty() {
        return "the shader has no specialization constants".to_string();
    }
    let mut named: std::collections::BTreeMap<u32, Option<&str>> = Default::default();
    for (n, t) in by_id {
        let slot = named.entry(*n).or_default();
        *slot = slot.or(m.name(*t));
    }
    let list: Vec<String> = named
        .iter()
        .map(|(n, name)| match name {
            Some(name) => format!("{n} ({name})"),
            None => n.to_string(),
        })
        .collect();
    format!("it has: {}", list.join(", "))
}

/// The spec constant `target` with `value` (text, checked against its type).
fn specialized(m: &Model, target: Word, label: &str, value: &str) -> Result<Option<Instruction>> {
    let Some(mut inst) = m.global(target).cloned() else {
        return Ok(None);
    };
    let bad = |what: &str| {
        Error::InvalidValue(format!(
            "{label} is {what}: `{value}` is not one ({})",
            match what {
                "a bool" => "true, false, 1 or 0",
                "a float" => "e.g. 1.5",
                _ => "an integer in the type's range",
            }
        ))
    };
    match inst.result_type.and_then(|ty| Types(m).scalar(ty)) {
        Some(Scalar::Bool) => {
            let op = match value {
                "true" | "1" => Op::SpecConstantTrue,
                "false" | "0" => Op::SpecConstantFalse,
                _ => return Err(bad("a bool")),
            };
            inst = Instruction::new(op, inst.result_type, inst.result_id, vec![]);
        }
        Some(Scalar::Int { width, signed }) => {
            let parsed = parse_int(value, width, signed).ok_or_else(|| {
                bad(&format!(
                    "{} {width}-bit integer",
                    if signed { "a signed" } else { "an unsigned" }
                ))
            })?;
            inst.operands = literal(parsed, width);
        }
        Some(Scalar::Float { width }) => {
            let f: f64 = value.parse().map_err(|_| bad("a float"))?;
            let bits = match width {
                64 => f.to_bits(),
                32 if (f as f32).is_infinite() && f.is_finite() => return Err(bad("a float")),
                32 => (f as f32).to_bits() as u64,
                _ => {
                    return Err(Error::Unsupported(format!(
                        "{label} is a {width}-bit float, which atomport cannot set"
                    )));
                }
            };
            inst.operands = literal(bits, width);
        }
        None => {
            return Err(Error::Unsupported(format!(
                "{label} is not a scalar; set its scalar parts"
            )));
        }
    }
    Ok(Some(inst))
}

fn literal(bits: u64, width: u32) -> Vec<Operand> {
    vec![crate::lower::model::literal(bits, width > 32)]
}

/// Folds the module's specialization constants if naga could not read them;
/// returns how many it folded. `local_size` holds the ids of a `LocalSizeId`
/// mode, whose values become the entry point's `LocalSize`.
pub fn fold_specialization_constants(m: &mut Model, local_size: LocalSizeIds) -> Result<usize> {
    let workgroup_size = m.builtin(BuiltIn::WorkgroupSize);
    let local_size_is_spec =
        local_size.is_some_and(|ids| ids.iter().any(|&c| m.op_of(c).is_some_and(is_spec_op)));
    // An array sized by one (`shared vec4 tile[TILE_SIZE];`, a tiled
    // n-body's shared memory) is a length naga's reader refuses.
    let sized_by_spec = |i: &Instruction| {
        i.class.opcode == Op::TypeArray
            && i.operands
                .get(1)
                .and_then(id)
                .and_then(|len| m.op_of(len))
                .is_some_and(is_spec_op)
    };
    let needs = local_size_is_spec
        || m.module().types_global_values.iter().any(|i| {
            i.class.opcode == Op::SpecConstantOp
                || (i.result_id == workgroup_size && i.class.opcode == Op::SpecConstantComposite)
                || sized_by_spec(i)
        });
    let folded = if needs { fold(m)? } else { 0 };
    // Folded or not, the sizes are plain constants now.
    let dims_of = |ids: &[Word]| -> Vec<u32> {
        ids.iter()
            .map(|&c| m.constant_u32(c).unwrap_or(1))
            .collect()
    };
    // The WorkgroupSize built-in wins over LocalSize: write it there.
    let dims = match workgroup_size {
        Some(w) if needs => m
            .global(w)
            .map(|i| dims_of(&i.operands.iter().filter_map(id).collect::<Vec<_>>())),
        _ => local_size.map(|ids| dims_of(&ids)),
    };
    if let Some(dims) = dims.filter(|d| d.len() == 3) {
        for mode in m.module_mut().execution_modes.iter_mut() {
            if mode.operands.get(1) == Some(&Operand::ExecutionMode(ExecutionMode::LocalSize)) {
                mode.operands.truncate(2);
                mode.operands
                    .extend(dims.iter().map(|d| Operand::LiteralBit32(*d)));
            }
        }
    }
    Ok(folded)
}

/// `words` with every specialization constant folded to its default, for
/// readers of the declarations alone (`atomport check`'s input layouts): an
/// array sized by a spec-constant operation (`uint lodCount[MAX_LOD + 1]`)
/// is otherwise a length naga cannot read. `None` when the module has no
/// such operation, or cannot be folded.
#[cfg(feature = "runtime")]
pub fn with_defaults_folded(words: &[u32]) -> Option<Vec<u32>> {
    let op = Op::SpecConstantOp as u32;
    if !crate::front::spirv::instructions(words).any(|(_, inst)| inst[0] & 0xffff == op) {
        return None;
    }
    let mut m = Model::load(words, "").ok()?;
    fold(&mut m).ok()?;
    m.assemble().ok()
}

/// Turns every specialization constant into a constant, evaluating the
/// operations; returns how many.
fn fold(m: &mut Model) -> Result<usize> {
    let mut values: HashMap<Word, Val> = HashMap::default();
    let types = Types(m);
    let mut folded = 0;
    // (position, the instruction that replaces it, constants for its parts
    // to insert before it).
    let mut edits: Vec<(usize, Instruction, Vec<Instruction>)> = Vec::new();
    for (at, inst) in m.module().types_global_values.iter().enumerate() {
        let Some(r) = inst.result_id else { continue };
        let op = inst.class.opcode;
        let as_constant =
            |op: Op| Instruction::new(op, inst.result_type, Some(r), inst.operands.clone());
        let replaced = match op {
            Op::Constant | Op::SpecConstant => {
                match inst.operands.first() {
                    Some(Operand::LiteralBit32(v)) => {
                        values.insert(r, Val::Bits(*v as u64));
                    }
                    Some(Operand::LiteralBit64(v)) => {
                        values.insert(r, Val::Bits(*v));
                    }
                    _ => {}
                }
                (op == Op::SpecConstant).then(|| as_constant(Op::Constant))
            }
            Op::ConstantTrue | Op::SpecConstantTrue => {
                values.insert(r, Val::Bits(1));
                (op == Op::SpecConstantTrue).then(|| as_constant(Op::ConstantTrue))
            }
            Op::ConstantFalse | Op::SpecConstantFalse | Op::ConstantNull => {
                let zero = inst
                    .result_type
                    .map_or(Val::Bits(0), |t| zero_of(&types, t));
                values.insert(r, zero);
                (op == Op::SpecConstantFalse).then(|| as_constant(Op::ConstantFalse))
            }
            Op::ConstantComposite | Op::SpecConstantComposite => {
                let parts: Option<Vec<Val>> = inst
                    .operands
                    .iter()
                    .map(|o| id(o).and_then(|i| values.get(&i).cloned()))
                    .collect();
                if let Some(parts) = parts {
                    values.insert(r, Val::Parts(parts));
                }
                (op == Op::SpecConstantComposite).then(|| as_constant(Op::ConstantComposite))
            }
            Op::SpecConstantOp => {
                let what = m
                    .name(r)
                    .map_or_else(|| format!("%{r}"), |n| format!("`{n}`"));
                let Some(Operand::LiteralSpecConstantOpInteger(inner)) = inst.operands.first()
                else {
                    return Err(Error::shader(
                        "malformed SPIR-V: an OpSpecConstantOp without an operation",
                    ));
                };
                let inner = *inner;
                let ty = inst.result_type.unwrap_or(0);
                let value = eval_op(&types, inner, ty, &inst.operands[1..], &values).ok_or_else(|| {
                    Error::Unsupported(format!(
                        "the specialization constant {what} ({inner:?}) cannot be evaluated: its operands are not integer, boolean or vector constants"
                    ))
                })??;
                // The folded instruction, with constants for composite parts.
                let mut extra = Vec::new();
                let folded_inst = materialize(&types, ty, r, &value, &mut extra);
                values.insert(r, value);
                edits.push((at, folded_inst, extra));
                folded += 1;
                continue;
            }
            _ => None,
        };
        if let Some(new) = replaced {
            edits.push((at, new, Vec::new()));
            folded += 1;
        }
    }
    let module = m.module_mut();
    for (at, new, extra) in edits.into_iter().rev() {
        module.types_global_values[at] = new;
        module.types_global_values.splice(at..at, extra);
    }
    module.annotations.retain(|a| {
        !matches!(
            a.operands.get(1),
            Some(Operand::Decoration(Decoration::SpecId))
        )
    });
    Ok(folded)
}

/// The module's specialization constants, scalars and those built of them,
/// before [`fold_specialization_constants`] turns them into constants.
pub fn specialization_constants(m: &Model) -> HashSet<Word> {
    m.module()
        .types_global_values
        .iter()
        .filter(|i| is_spec_op(i.class.opcode))
        .filter_map(|i| i.result_id)
        .collect()
}

fn is_spec_op(op: Op) -> bool {
    matches!(
        op,
        Op::SpecConstant
            | Op::SpecConstantTrue
            | Op::SpecConstantFalse
            | Op::SpecConstantComposite
            | Op::SpecConstantOp
    )
}

fn zero_of(types: &Types, ty: Word) -> Val {
    match types.global(ty).map(|t| t.class.opcode) {
        Some(Op::TypeVector | Op::TypeArray | Op::TypeMatrix | Op::TypeStruct) => {
            let n = match types.global(ty) {
                Some(t) if t.class.opcode == Op::TypeVector => match t.operands.get(1) {
                    Some(Operand::LiteralBit32(n)) => *n,
                    _ => 0,
                },
                Some(t) if t.class.opcode == Op::TypeStruct => t.operands.len() as u32,
                _ => 0,
            };
            Val::Parts(
                (0..n)
                    .map(|k| {
                        types
                            .member(ty, k)
                            .map_or(Val::Bits(0), |m| zero_of(types, m))
                    })
                    .collect(),
            )
        }
        _ => Val::Bits(0),
    }
}

/// The constant instruction for `value` of type `ty` as id `r`; composite
/// parts get constants of their own, pushed to `extra`.
fn materialize(
    types: &Types,
    ty: Word,
    r: Word,
    value: &Val,
    extra: &mut Vec<Instruction>,
) -> Instruction {
    match value {
        Val::Bits(b) => match types.scalar(ty) {
            Some(Scalar::Bool) => Instruction::new(
                if *b != 0 {
                    Op::ConstantTrue
                } else {
                    Op::ConstantFalse
                },
                Some(ty),
                Some(r),
                vec![],
            ),
            Some(s) => Instruction::new(Op::Constant, Some(ty), Some(r), literal(*b, s.width())),
            None => Instruction::new(Op::Constant, Some(ty), Some(r), literal(*b, 32)),
        },
        Val::Parts(parts) => {
            let mut ids = Vec::new();
            for (k, p) in parts.iter().enumerate() {
                let pty = types.member(ty, k as u32).unwrap_or(0);
                let pid = types.0.fresh();
                let inst = materialize(types, pty, pid, p, extra);
                extra.push(inst);
                ids.push(Operand::IdRef(pid));
            }
            Instruction::new(Op::ConstantComposite, Some(ty), Some(r), ids)
        }
    }
}

/// Evaluates one `OpSpecConstantOp`; `None` when an operand has no known
/// value or the operation is not one SPIR-V allows for shaders.
fn eval_op(
    types: &Types,
    op: Op,
    ty: Word,
    operands: &[Operand],
    values: &HashMap<Word, Val>,
) -> Option<Result<Val>> {
    let arg = |k: usize| operands.get(k).and_then(id).and_then(|i| values.get(&i));
    let lit = |k: usize| match operands.get(k) {
        Some(Operand::LiteralBit32(v)) => Some(*v),
        _ => None,
    };
    match op {
        Op::CompositeExtract => {
            let mut v = arg(0)?.clone();
            for k in 1..operands.len() {
                let Val::Parts(p) = v else { return None };
                v = p.get(lit(k)? as usize)?.clone();
            }
            Some(Ok(v))
        }
        Op::CompositeInsert => {
            let object = arg(0)?.clone();
            let mut whole = arg(1)?.clone();
            let path: Option<Vec<u32>> = (2..operands.len()).map(lit).collect();
            let path = path?;
            let mut slot = &mut whole;
            for k in path {
                let Val::Parts(p) = slot else { return None };
                slot = p.get_mut(k as usize)?;
            }
            *slot = object;
            Some(Ok(whole))
        }
        Op::VectorShuffle => {
            let (Val::Parts(a), Val::Parts(b)) = (arg(0)?, arg(1)?) else {
                return None;
            };
            let mut out = Vec::new();
            for k in 2..operands.len() {
                let c = lit(k)? as usize;
                out.push(if c == 0xffff_ffff {
                    Val::Bits(0)
                } else if c < a.len() {
                    a[c].clone()
                } else {
                    b.get(c - a.len())?.clone()
                });
            }
            Some(Ok(Val::Parts(out)))
        }
        Op::Select => {
            let (c, x, y) = (arg(0)?, arg(1)?, arg(2)?);
            Some(Ok(match (c, x, y) {
                (Val::Bits(c), x, y) => {
                    if *c != 0 {
                        x.clone()
                    } else {
                        y.clone()
                    }
                }
                (Val::Parts(c), Val::Parts(x), Val::Parts(y)) => Val::Parts(
                    c.iter()
                        .zip(x.iter().zip(y))
                        .map(|(c, (x, y))| {
                            if *c != Val::Bits(0) {
                                x.clone()
                            } else {
                                y.clone()
                            }
                        })
                        .collect(),
                ),
                _ => return None,
            }))
        }
        _ => componentwise(types, op, ty, operands, values),
    }
}

/// A scalar operation applied component by component (or to scalars).
fn componentwise(
    types: &Types,
    op: Op,
    ty: Word,
    operands: &[Operand],
    values: &HashMap<Word, Val>,
) -> Option<Result<Val>> {
    let arg = |k: usize| operands.get(k).and_then(id).and_then(|i| values.get(&i));
    let arg_type = |k: usize| {
        operands
            .get(k)
            .and_then(id)
            .and_then(|i| types.result_type(i))
    };
    let n = operands.len();
    if n == 0 || n > 2 {
        return None;
    }
    let result_scalar = component_scalar(types, ty)?;
    let operand_scalar = component_scalar(types, arg_type(0)?)?;
    let (b, b_scalar) = if n == 2 {
        (Some(arg(1)?), Some(component_scalar(types, arg_type(1)?)?))
    } else {
        (None, None)
    };
    let one = |a: &Val, b: Option<&Val>| -> Option<Result<Val>> {
        let (Val::Bits(a), b) = (a, b) else {
            return None;
        };
        let b = match b {
            Some(Val::Bits(b)) => Some(*b),
            None => None,
            Some(Val::Parts(_)) => return None,
        };
        Some(scalar_op(op, result_scalar, operand_scalar, b_scalar, *a, b)?.map(Val::Bits))
    };
    match (arg(0)?, b) {
        (a @ Val::Bits(_), b) => one(a, b),
        (Val::Parts(a), None) => a
            .iter()
            .map(|x| one(x, None))
            .collect::<Option<Result<Vec<Val>>>>()
            .map(|r| r.map(Val::Parts)),
        (Val::Parts(a), Some(Val::Parts(b))) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .map(|(x, y)| one(x, Some(y)))
            .collect::<Option<Result<Vec<Val>>>>()
            .map(|r| r.map(Val::Parts)),
        _ => None,
    }
}

fn component_scalar(types: &Types, ty: Word) -> Option<Scalar> {
    types.scalar(ty).or_else(|| {
        let t = types.global(ty)?;
        (t.class.opcode == Op::TypeVector)
            .then(|| t.operands.first().and_then(id))
            .flatten()
            .and_then(|c| types.scalar(c))
    })
}

/// One scalar operation on bit patterns of the given types.
fn scalar_op(
    op: Op,
    result: Scalar,
    operand: Scalar,
    second: Option<Scalar>,
    a: u64,
    b: Option<u64>,
) -> Option<Result<u64>> {
    let w = operand.width();
    let rw = result.width();
    let (ua, sa) = (mask(a, w), sext(a, w));
    let bw = second.map_or(w, Scalar::width);
    let (ub, sb) = (b.map(|b| mask(b, bw)), b.map(|b| sext(b, bw)));
    let bool_ = |x: bool| x as u64;
    let div_zero = || {
        Err(Error::Unsupported(format!(
            "a specialization constant divides by zero ({op:?})"
        )))
    };
    let v = match op {
        Op::IAdd => ua.wrapping_add(ub?),
        Op::ISub => ua.wrapping_sub(ub?),
        Op::IMul => ua.wrapping_mul(ub?),
        Op::UDiv => match ub? {
            0 => return Some(div_zero()),
            d => ua / d,
        },
        Op::SDiv => match sb? {
            0 => return Some(div_zero()),
            d => sa.wrapping_div(d) as u64,
        },
        Op::UMod => match ub? {
            0 => return Some(div_zero()),
            d => ua % d,
        },
        // SRem's sign follows the dividend, SMod's the divisor.
        Op::SRem => match sb? {
            0 => return Some(div_zero()),
            d => sa.wrapping_rem(d) as u64,
        },
        Op::SMod => match sb? {
            0 => return Some(div_zero()),
            d => {
                let r = sa.wrapping_rem(d);
                (if r != 0 && (r < 0) != (d < 0) {
                    r + d
                } else {
                    r
                }) as u64
            }
        },
        Op::SNegate => sa.wrapping_neg() as u64,
        Op::Not => !ua,
        // A shift by the width or more is undefined in SPIR-V: 0 here.
        Op::ShiftLeftLogical => {
            let s = ub?;
            if s < w as u64 { ua << s } else { 0 }
        }
        Op::ShiftRightLogical => {
            let s = ub?;
            if s < w as u64 { ua >> s } else { 0 }
        }
        Op::ShiftRightArithmetic => {
            if ub? < w as u64 {
                (sa >> ub?) as u64
            } else {
                (sa >> 63) as u64
            }
        }
        Op::BitwiseAnd => ua & ub?,
        Op::BitwiseOr => ua | ub?,
        Op::BitwiseXor => ua ^ ub?,
        Op::IEqual | Op::LogicalEqual => bool_(ua == ub?),
        Op::INotEqual | Op::LogicalNotEqual => bool_(ua != ub?),
        Op::ULessThan => bool_(ua < ub?),
        Op::SLessThan => bool_(sa < sb?),
        Op::UGreaterThan => bool_(ua > ub?),
        Op::SGreaterThan => bool_(sa > sb?),
        Op::ULessThanEqual => bool_(ua <= ub?),
        Op::SLessThanEqual => bool_(sa <= sb?),
        Op::UGreaterThanEqual => bool_(ua >= ub?),
        Op::SGreaterThanEqual => bool_(sa >= sb?),
        Op::LogicalAnd => bool_(ua != 0 && ub? != 0),
        Op::LogicalOr => bool_(ua != 0 || ub? != 0),
        Op::LogicalNot => bool_(ua == 0),
        Op::UConvert => ua,
        Op::SConvert => sa as u64,
        Op::FConvert => match (w, rw) {
            (32, 64) => (f32::from_bits(ua as u32) as f64).to_bits(),
            (64, 32) => (f64::from_bits(ua) as f32).to_bits() as u64,
            (x, y) if x == y => ua,
            _ => return None,
        },
        _ => return None,
    };
    Some(Ok(match result {
        Scalar::Bool => v & 1,
        _ => mask(v, rw),
    }))
}

/// Constants that WGSL would evaluate when the pipeline is created, read
/// at run time instead, as the original reads them:
///
/// - Float arithmetic on a specialization constant (`BIG * 4.0`, `FAR /
///   scale`), and a specialization constant converted to a float
///   (`1.0 / float(SAMPLES)`, `vec2(gl_WorkGroupSize.xy - 1)` in Granite's
///   ASTC decoder): naga and wgpu evaluate an expression of overrides and
///   constants when the pipeline is created, and WGSL evaluates one of
///   constants (a folded specialization constant among them) when the
///   shader is created, where a result that is not finite is an error
///   ("Float literal is infinite"), while the original computes it when
///   it runs, often in a branch its default values never take.
/// - The divisor of an integer division or remainder that is a
///   specialization constant, or a constant (a folded one among them) with
///   a zero component: WGSL makes a zero constant or override divisor an
///   error ("Division by zero") even in a branch that never runs, as in
///   `if (TILE != 0u) { n = w / TILE; }` with `TILE` 0 by default.
///
/// Each such operand reads the constant from a private variable it
/// initializes: the variable keeps an override settable, and the
/// arithmetic happens at run time. `specs` holds the module's
/// specialization constants as [`specialization_constants`] found them
/// before folding. Returns how many uses.
pub fn constants_at_run_time(m: &mut Model, specs: &HashSet<Word>) -> Result<usize> {
    // Those that stay overrides.
    let spec_scalars: Vec<Word> = m
        .module()
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::SpecConstant)
        .filter_map(|i| i.result_id)
        .collect();
    let float_typed = |m: &Model, w: Word| {
        m.result_type(w)
            .is_some_and(|t| m.op_of(m.scalar_of(t)) == Some(Op::TypeFloat))
    };
    let float_arithmetic = |op: Op| {
        matches!(
            op,
            Op::FAdd
                | Op::FSub
                | Op::FMul
                | Op::FDiv
                | Op::FRem
                | Op::FMod
                | Op::FNegate
                | Op::VectorTimesScalar
                | Op::ExtInst
        )
    };
    let to_float = |op: Op| {
        matches!(
            op,
            Op::ConvertUToF | Op::ConvertSToF | Op::FConvert | Op::Bitcast
        )
    };
    let division = |op: Op| matches!(op, Op::UDiv | Op::SDiv | Op::UMod | Op::SMod | Op::SRem);
    // Divisors (operand 1), and vectors built of constants to be divisors,
    // which WGSL evaluates as constants too.
    let divisors: HashSet<Word> = m
        .instructions()
        .filter(|i| division(i.class.opcode))
        .filter_map(|i| i.operands.get(1).and_then(id))
        .collect();
    // Whether operand `k` of `inst` is a constant to read at run time.
    let at_run_time = |m: &Model, inst: &Instruction, k: usize| -> bool {
        let Some(w) = inst.operands.get(k).and_then(id) else {
            return false;
        };
        let op = inst.class.opcode;
        let divisor = (division(op) && k == 1)
            || (op == Op::CompositeConstruct
                && inst.result_id.is_some_and(|r| divisors.contains(&r)));
        if float_arithmetic(op) {
            specs.contains(&w) && float_typed(m, w)
        } else if to_float(op) {
            k == 0 && specs.contains(&w) && inst.result_id.is_some_and(|r| float_typed(m, r))
        } else {
            divisor && (spec_scalars.contains(&w) || has_zero_part(m, w))
        }
    };
    // The constants to read at run time, each once, with their types.
    let mut used: Vec<(Word, Word)> = Vec::new();
    for i in m.instructions() {
        for k in 0..i.operands.len() {
            if at_run_time(m, i, k)
                && let Some(w) = i.operands.get(k).and_then(id)
                && let Some(ty) = m.result_type(w)
                && !used.contains(&(w, ty))
            {
                used.push((w, ty));
            }
        }
    }
    if used.is_empty() {
        return Ok(0);
    }
    // One private variable per constant, initialized by it.
    let mut vars: HashMap<Word, (Word, Word)> = HashMap::default();
    for &(c, ty) in &used {
        let var = m.private_variable(ty, c);
        if let Some(name) = m.name(c).map(|n| format!("{n}_at_run_time")) {
            m.set_name(var, name);
        }
        vars.insert(c, (var, ty));
    }
    let n = m.rewrite(|e, inst| {
        let mut new = inst.clone();
        let mut changed = false;
        for k in 0..inst.operands.len() {
            if !at_run_time(e.m, inst, k) {
                continue;
            }
            if let Some(Operand::IdRef(w)) = new.operands.get_mut(k)
                && let Some(&(var, ty)) = vars.get(w)
            {
                *w = e.op(Op::Load, ty, &[var]);
                changed = true;
            }
        }
        if changed {
            e.push(new);
        }
        Ok(changed)
    })?;
    Ok(n)
}

/// Whether constant `c` is zero or a composite with a zero part.
fn has_zero_part(m: &Model, c: Word) -> bool {
    let Some(i) = m.global(c) else { return false };
    match i.class.opcode {
        Op::ConstantNull => true,
        Op::Constant => {
            m.constant_u32(c) == Some(0)
                || matches!(i.operands.as_slice(), [Operand::LiteralBit64(0)])
        }
        Op::ConstantComposite => i
            .operands
            .iter()
            .filter_map(id)
            .any(|p| has_zero_part(m, p)),
        _ => false,
    }
}

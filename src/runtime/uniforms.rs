//! [`Uniforms`]: a uniform block's contents, set member by member by GLSL
//! name — above all the loose uniforms of OpenGL GLSL (`uniform uint n;`),
//! which atomport gathers into one block.

use crate::kernel::{BindingInfo, Member};
use crate::lower::spirv::opengl::OpenGlKind;
use crate::{Buffer, Context, Error, Kernel, Result, ScalarType};

/// The scalar kind of a value given from Rust.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ValueKind {
    U32,
    I32,
    F32,
    Bool,
}

/// A typed value for a uniform: a scalar, a vector (array) or a matrix
/// (array of columns), from `u32`, `i32`, `f32` or `bool`.
#[derive(Clone, Debug, PartialEq)]
pub struct UniformValue {
    kind: ValueKind,
    /// Each scalar as a 32-bit pattern of its own type (column-major).
    words: Vec<u32>,
}

macro_rules! uniform_value_from {
    ($t:ty, $kind:ident, $bits:expr) => {
        impl From<$t> for UniformValue {
            fn from(v: $t) -> Self {
                UniformValue {
                    kind: ValueKind::$kind,
                    words: vec![$bits(v)],
                }
            }
        }
        impl<const N: usize> From<[$t; N]> for UniformValue {
            fn from(v: [$t; N]) -> Self {
                UniformValue {
                    kind: ValueKind::$kind,
                    words: v.into_iter().map($bits).collect(),
                }
            }
        }
        impl<const R: usize, const C: usize> From<[[$t; R]; C]> for UniformValue {
            fn from(v: [[$t; R]; C]) -> Self {
                UniformValue {
                    kind: ValueKind::$kind,
                    words: v.into_iter().flatten().map($bits).collect(),
                }
            }
        }
        impl From<&[$t]> for UniformValue {
            fn from(v: &[$t]) -> Self {
                UniformValue {
                    kind: ValueKind::$kind,
                    words: v.iter().copied().map($bits).collect(),
                }
            }
        }
    };
}

uniform_value_from!(u32, U32, |v: u32| v);
uniform_value_from!(i32, I32, |v: i32| v as u32);
uniform_value_from!(f32, F32, f32::to_bits);
uniform_value_from!(bool, Bool, u32::from);

/// The contents of one uniform block of a kernel, set by member name and
/// checked against each member's GLSL type; unset members fall back to the
/// shader's initializers.
///
/// ```no_run
/// # use atomport::{Bind, Context, ContextOptions, Kernel, SourceOptions, Uniforms};
/// # let kernel: Kernel = todo!();
/// # let ctx: Context = todo!();
/// let mut uniforms = Uniforms::new(&kernel)?;
/// uniforms.set("count", 1000u32)?.set("scale", 0.5f32)?.set("origin", [0.0f32, 1.0, 2.0])?;
/// let buffer = uniforms.to_buffer(&ctx)?;
/// # Ok::<(), atomport::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Uniforms {
    /// What a member is called in messages: `uniform` or `push constant`.
    what: &'static str,
    group: u32,
    binding: u32,
    block: String,
    members: Vec<Member>,
    bytes: Vec<u8>,
    /// Per member: set (or initialized) yet.
    set: Vec<bool>,
    /// Initializers that are no constant atomport can read: (member, text).
    unreadable: Vec<(usize, String)>,
}

impl Uniforms {
    /// The loose uniforms (`uniform float x;` outside any block) of an
    /// OpenGL-dialect kernel, gathered in `gl_DefaultUniformBlock`.
    pub fn new(kernel: &Kernel) -> Result<Uniforms> {
        let info = kernel
            .bindings()
            .iter()
            .find(|b| b.opengl.map(|o| o.kind) == Some(OpenGlKind::DefaultUniformBlock))
            .ok_or_else(|| {
                Error::Uniform(format!(
                    "the kernel has no loose uniforms (its bindings: {})",
                    kernel.binding_names()
                ))
            })?;
        Uniforms::of(info)
    }

    /// The uniform block `name` (its instance or block name, or
    /// `gl_DefaultUniformBlock` for the loose uniforms).
    pub fn block(kernel: &Kernel, name: &str) -> Result<Uniforms> {
        Uniforms::of(kernel.binding_named(name)?)
    }

    /// The push-constant block (`layout(push_constant)`), which atomport
    /// binds as a buffer (see [`BindingInfo::push_constant`]): set its
    /// members by name, then bind [`Uniforms::to_buffer`] at
    /// [`Uniforms::slot`] or by the block's name.
    pub fn push(kernel: &Kernel) -> Result<Uniforms> {
        let info = kernel
            .bindings()
            .iter()
            .find(|b| b.push_constant)
            .ok_or_else(|| {
                Error::Uniform(format!(
                    "the kernel has no push constants (its bindings: {})",
                    kernel.binding_names()
                ))
            })?;
        Uniforms::of(info)
    }

    /// The uniform block (or push-constant block) at `info`.
    pub fn of(info: &BindingInfo) -> Result<Uniforms> {
        if info.kind != crate::BindingKind::Uniform && !info.push_constant {
            return Err(Error::Uniform(format!(
                "binding `{}` is a {}, not a uniform block",
                info.display_name(),
                info.kind.describe()
            )));
        }
        let mut u = Uniforms {
            what: if info.push_constant {
                "push constant"
            } else {
                "uniform"
            },
            group: info.group,
            binding: info.binding,
            block: info.display_name(),
            members: info.members.clone(),
            bytes: vec![0; info.min_size.max(4) as usize],
            set: vec![false; info.members.len()],
            unreadable: Vec::new(),
        };
        for (i, m) in info.members.iter().enumerate() {
            let Some(text) = &m.initializer else { continue };
            match parse_text(m, text) {
                Ok(words) => u.write_member(i, &words),
                Err(_) => u.unreadable.push((i, text.clone())),
            }
        }
        Ok(u)
    }

    /// The block's (group, binding).
    pub fn slot(&self) -> (u32, u32) {
        (self.group, self.binding)
    }

    /// The members, with their GLSL types, offsets and sizes.
    pub fn members(&self) -> &[Member] {
        &self.members
    }

    /// Sets member `name` to `value`, which must have the member's number
    /// of scalars (a matrix column-major) and a type that converts to it
    /// exactly: `u32`/`i32`/`bool` for integer members (an `i32` must not be
    /// negative for a `uint`), `f32` for float members.
    pub fn set(&mut self, name: &str, value: impl Into<UniformValue>) -> Result<&mut Self> {
        let value = value.into();
        let i = self.member(name)?;
        let m = &self.members[i];
        let Some(scalar) = m.shape.scalar else {
            return Err(self.unsettable(i));
        };
        let what = self.what;
        let bad = |why: String| Error::Uniform(format!("{what} `{name}` is {}: {why}", m.ty));
        if value.words.len() != m.shape.scalars() {
            return Err(bad(format!(
                "it takes {} value(s), {} given",
                m.shape.scalars(),
                value.words.len()
            )));
        }
        let mut words = Vec::with_capacity(value.words.len());
        for &w in &value.words {
            words.push(match (scalar, value.kind) {
                (ScalarType::F32, ValueKind::F32)
                | (ScalarType::U32, ValueKind::U32 | ValueKind::Bool)
                | (ScalarType::I32, ValueKind::I32 | ValueKind::Bool) => w,
                (ScalarType::U32, ValueKind::I32) if (w as i32) >= 0 => w,
                (ScalarType::I32, ValueKind::U32) if w <= i32::MAX as u32 => w,
                (ScalarType::U32, ValueKind::I32) | (ScalarType::I32, ValueKind::U32) => {
                    return Err(bad(format!(
                        "{} is out of its range",
                        if value.kind == ValueKind::I32 {
                            (w as i32).to_string()
                        } else {
                            w.to_string()
                        }
                    )));
                }
                (_, kind) => {
                    return Err(bad(format!(
                        "a {} value was given",
                        match kind {
                            ValueKind::U32 => "u32",
                            ValueKind::I32 => "i32",
                            ValueKind::F32 => "f32",
                            ValueKind::Bool => "bool",
                        }
                    )));
                }
            });
        }
        self.write_member(i, &words);
        Ok(self)
    }

    /// Sets member `name` from text, as `atomport run --uniform NAME=VALUE`
    /// does: scalars (`5`, `-2`, `0x1f`, `2.5`, `true`), vectors and
    /// matrices as comma-separated lists (`1,2,3`; matrices column-major),
    /// or GLSL constructors (`vec3(1.0, 2.0, 3.0)`).
    pub fn set_text(&mut self, name: &str, text: &str) -> Result<&mut Self> {
        let i = self.member(name)?;
        // 8- and 16-bit members (of push constants and uniform blocks atomport
        // reads as words) take their own widths.
        if let Some((ty, n)) =
            crate::ElementType::of_glsl_type(&self.members[i].ty).filter(|(t, _)| t.bytes() < 4)
        {
            let m = &self.members[i];
            let bad =
                |why: String| Error::Uniform(format!("uniform `{}` is {}: {why}", m.name, m.ty));
            let mut values = tokens(text).map_err(bad)?;
            if values.len() == 1 && n > 1 {
                values = vec![values[0].clone(); n];
            }
            if values.len() != n {
                return Err(bad(format!(
                    "it takes {n} value(s), {} given in `{text}`",
                    values.len()
                )));
            }
            let width = ty.bytes();
            let offset = m.offset as usize;
            let mut bytes = Vec::with_capacity(n * width);
            for v in &values {
                let v = v.strip_suffix(['u', 'U']).unwrap_or(v);
                let bits = ty.parse_value(v).map_err(|e| bad(e.to_string()))?;
                bytes.extend_from_slice(&bits.to_le_bytes()[..width]);
            }
            if let Some(dst) = self.bytes.get_mut(offset..offset + bytes.len()) {
                dst.copy_from_slice(&bytes);
            }
            self.set[i] = true;
            return Ok(self);
        }
        let words = parse_text(&self.members[i], text)?;
        self.write_member(i, &words);
        Ok(self)
    }

    /// Whether member `name` has a value (set, or from the shader's initializer).
    pub fn is_set(&self, name: &str) -> bool {
        self.members
            .iter()
            .position(|m| m.name == name)
            .is_some_and(|i| self.set[i])
    }

    /// The block's bytes; an error names the first member that has no value.
    pub fn bytes(&self) -> Result<&[u8]> {
        if let Some(i) = self.set.iter().position(|s| !s) {
            let m = &self.members[i];
            let why = match self.unreadable.iter().find(|(j, _)| *j == i) {
                Some((_, text)) => format!(
                    "its initializer `{text}` is not a constant atomport can read, so it must be set"
                ),
                None => "it has no initializer in the shader, so it must be set".into(),
            };
            return Err(Error::Uniform(format!(
                "{} `{}` ({}) of `{}` is not set: {why} (members: {})",
                self.what,
                m.name,
                m.ty,
                self.block,
                self.member_list()
            )));
        }
        Ok(&self.bytes)
    }

    /// A new buffer holding the block (bind it at [`Uniforms::slot`] or by the block's name).
    pub fn to_buffer(&self, ctx: &Context) -> Result<Buffer> {
        Buffer::from_bytes(ctx, self.bytes()?)
    }

    /// Writes the block into `buffer` (e.g. new values before the next dispatch).
    pub fn write_to(&self, ctx: &Context, buffer: &Buffer) -> Result<()> {
        buffer.write::<u8>(ctx, self.bytes()?)
    }

    fn member(&self, name: &str) -> Result<usize> {
        self.members
            .iter()
            .position(|m| m.name == name)
            .ok_or_else(|| {
                Error::Uniform(format!(
                    "`{}` has no {} named `{name}` (members: {})",
                    self.block,
                    self.what,
                    self.member_list()
                ))
            })
    }

    fn member_list(&self) -> String {
        let list: Vec<String> = self
            .members
            .iter()
            .map(|m| format!("{} {}", m.ty, m.name))
            .collect();
        if list.is_empty() {
            "none".into()
        } else {
            list.join(", ")
        }
    }

    fn unsettable(&self, i: usize) -> Error {
        let m = &self.members[i];
        Error::Uniform(format!(
            "uniform `{}` is {}, which cannot be set member by member; write the block's bytes into a buffer instead",
            m.name, m.ty
        ))
    }

    fn write_member(&mut self, i: usize, words: &[u32]) {
        let m = &self.members[i];
        for (k, w) in words.iter().enumerate() {
            // A 64-bit member's words lie side by side.
            let at = match m.shape.scalar {
                Some(_) => (m.offset + m.shape.scalar_offset(k)) as usize,
                None => m.offset as usize + 4 * k,
            };
            if let Some(dst) = self.bytes.get_mut(at..at + 4) {
                dst.copy_from_slice(&w.to_le_bytes());
            }
        }
        self.set[i] = true;
    }
}

/// A member's value from text: a list of literals, GLSL constructors
/// flattened (`vec3(1.0)` splats, `mat2(2.0)` is a diagonal).
fn parse_text(m: &Member, text: &str) -> Result<Vec<u32>> {
    let Some(scalar) = m.shape.scalar else {
        // A 64-bit integer (a buffer reference's address among them): two
        // words, the low one first.
        if let Some(t) = crate::ElementType::from_glsl(&m.ty)
            .filter(|t| matches!(t, crate::ElementType::U64 | crate::ElementType::I64))
        {
            let bits = t
                .parse_value(text)
                .map_err(|e| Error::Uniform(format!("uniform `{}` is {}: {e}", m.name, m.ty)))?;
            return Ok(vec![bits as u32, (bits >> 32) as u32]);
        }
        return Err(Error::Uniform(format!(
            "uniform `{}` is {}, which cannot be set from text",
            m.name, m.ty
        )));
    };
    let bad = |why: String| Error::Uniform(format!("uniform `{}` is {}: {why}", m.name, m.ty));
    let tokens = tokens(text).map_err(bad)?;
    let mut words = Vec::with_capacity(tokens.len());
    for t in tokens.iter().map(String::as_str) {
        words.push(match (t, scalar) {
            ("true", ScalarType::U32 | ScalarType::I32) => 1,
            ("false", ScalarType::U32 | ScalarType::I32) => 0,
            (_, ScalarType::F32) => {
                let t = t
                    .strip_suffix("lf")
                    .or_else(|| t.strip_suffix(['f', 'F']))
                    .unwrap_or(t);
                scalar.parse_value(t).map_err(|e| bad(e.to_string()))?
            }
            _ => {
                let t = t.strip_suffix(['u', 'U']).unwrap_or(t);
                scalar.parse_value(t).map_err(|e| bad(e.to_string()))?
            }
        });
    }
    let s = &m.shape;
    let n = s.scalars();
    if words.len() == 1 && n > 1 && s.count == 1 {
        let v = words[0];
        let zero = 0;
        words = if s.columns == 1 {
            vec![v; n]
        } else {
            // A matrix from one scalar: that value on the diagonal.
            (0..n)
                .map(|k| {
                    if k as u32 / s.rows == k as u32 % s.rows {
                        v
                    } else {
                        zero
                    }
                })
                .collect()
        };
    }
    if words.len() != n {
        return Err(bad(format!(
            "it takes {n} value(s), {} given in `{text}`",
            words.len()
        )));
    }
    Ok(words)
}

/// The values in a member's text: a list of literals, GLSL constructors
/// and brackets dropped (`vec3(1.0, 2.0, 3.0)` is three values).
fn tokens(text: &str) -> std::result::Result<Vec<String>, String> {
    // An array constructor's size (`float[3](…)`, `vec2[](…)`) is no value.
    let mut unsized_text = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let typed = rest[..open]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        match rest[open..].find(']') {
            Some(close) if typed => {
                unsized_text.push_str(&rest[..open]);
                rest = &rest[open + close + 1..];
            }
            _ => {
                unsized_text.push_str(&rest[..=open]);
                rest = &rest[open + 1..];
            }
        }
    }
    unsized_text.push_str(rest);
    // Constructors and brackets only group: drop them.
    let mut flat = String::with_capacity(text.len());
    let mut word = String::new();
    for c in unsized_text.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-' || c == '+' {
            word.push(c);
            continue;
        }
        if c == '(' {
            word.clear(); // a constructor's name
        } else {
            flat.push_str(&word);
            word.clear();
        }
        if c == ',' {
            flat.push(',');
        } else if !(c.is_whitespace() || matches!(c, '(' | ')' | '[' | ']' | '{' | '}')) {
            return Err(format!("`{text}` is not a value"));
        }
    }
    flat.push_str(&word);
    let tokens: Vec<String> = flat.split(',').map(|t| t.trim().to_string()).collect();
    if tokens.iter().any(|t| t.is_empty()) {
        return Err(format!("`{text}` has an empty value"));
    }
    Ok(tokens)
}

//! glslang's C++ linked into a `wasm32-unknown-unknown` module (the `glsl`
//! feature in a browser): its static constructors, its `malloc`, and a
//! trap inside it turned into an [`Error`].
//!
//! - C++ static constructors run once, before glslang's first use. Naming
//!   `__wasm_call_ctors` here also stops the linker from wrapping every
//!   export of the module in a call to them, which would run them again
//!   around each call.
//! - C's `malloc` is served by Rust's global allocator. wasi-libc's own
//!   `malloc` takes for itself every page from the heap's base up to the
//!   memory's size on its first call, pages Rust's allocator already holds.
//!   The C side may hold at most [`C_HEAP_LIMIT`] bytes. An allocation
//!   past that, or one the page's memory cannot grow for, traps where it
//!   is asked: Debian's wasm libc++ has no exceptions, so its `operator
//!   new` hands glslang a null pointer, which glslang writes through.
//! - A trap (glslang's stack overflowing, its abort, a panic, which aborts
//!   on wasm32) ends only the call [`contain`] made through JavaScript. The
//!   module lives on and the next translation works.

use std::alloc::{Layout, alloc, dealloc};
use std::cell::Cell;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use crate::{Error, Result};

/// Most bytes glslang's C and C++ may hold at once: several times what a
/// real shader takes (tens of MiB), and well short of wasm32's 4 GiB.
pub const C_HEAP_LIMIT: usize = 256 << 20;

unsafe extern "C" {
    fn __wasm_call_ctors();
}

thread_local! {
    static CONSTRUCTED: Cell<bool> = const { Cell::new(false) };
    /// Bytes held through `malloc` now.
    static C_HELD: Cell<usize> = const { Cell::new(0) };
    /// Whether `malloc` refused a request since [`contain`] began.
    static REFUSED: Cell<bool> = const { Cell::new(false) };
}

/// Runs the C++ static constructors, once.
pub fn construct() {
    if !CONSTRUCTED.with(|c| c.replace(true)) {
        // SAFETY: the linker's function running every static constructor
        // of the module's C and C++; called once, before any of it is used.
        unsafe { __wasm_call_ctors() }
    }
}

/// Runs the translation of the shader `name` so that a trap inside it (a
/// stack overflow, an abort, a panic) becomes an [`Error`] naming the
/// shader, and the module goes on.
///
/// The work runs in a closure JavaScript calls: a trap unwinds to that
/// call, which returns the exception. The shadow stack's pointer, which the
/// trap leaves where it was, is put back by the epilogue of the function
/// that made the call, before anything else runs.
pub fn contain<T: 'static>(name: &str, work: impl FnOnce() -> Result<T> + 'static) -> Result<T> {
    let out: Rc<Cell<Option<Result<T>>>> = Rc::new(Cell::new(None));
    let job = Cell::new(Some(work));
    let slot = out.clone();
    let closure = Closure::once(move || {
        if let Some(work) = job.take() {
            slot.set(Some(work()));
        }
    });
    REFUSED.with(|r| r.set(false));
    let held = C_HELD.with(Cell::get);
    let how = call(closure.as_ref().unchecked_ref());
    drop(closure);
    match out.take() {
        Some(result) => result,
        None => {
            // What the trapped work allocated is never freed: it stays out
            // of the count, so that the next translation has the full limit.
            C_HELD.with(|h| h.set(held));
            Err(trapped(name, how))
        }
    }
}

// Calls a function and says how it ended, as a number: passing back
// anything else (the exception itself, a string) would run wasm code on
// the way, before the stack pointer is put back.
#[wasm_bindgen(inline_js = "export function atomport_call_caught(f) {
  try { f(); return 0; } catch (e) {
    const m = String((e && e.message) || e);
    console.warn('atomport: a translation trapped:', (e && e.stack) || m);
    if (m.includes('call stack')) return 1;
    if (m.includes('out of bounds')) return 2;
    return 3;
  }
}")]
extern "C" {
    fn atomport_call_caught(f: &js_sys::Function) -> u32;
}

/// How a call through JavaScript that did not return ended.
#[derive(Clone, Copy)]
enum Ended {
    /// The engine's own call stack ran out.
    CallStack,
    /// A memory access out of bounds: the shadow stack, at the bottom of
    /// memory, overflowed.
    OutOfBounds,
    /// Any other trap: an abort (`unreachable`), a panic.
    Trapped,
}

/// Calls `f` from JavaScript. Not inlined, and with a frame of its own on
/// the shadow stack: its epilogue restores the stack pointer that a trap
/// in `f` left low. Its answer is read only when `f` left no result.
#[inline(never)]
fn call(f: &js_sys::Function) -> Ended {
    let mut frame = [0u8; 16];
    std::hint::black_box(&mut frame);
    match atomport_call_caught(f) {
        1 => Ended::CallStack,
        2 => Ended::OutOfBounds,
        _ => Ended::Trapped,
    }
}

/// The error for a trap inside [`contain`]'s work on the shader `name`.
fn trapped(name: &str, how: Ended) -> Error {
    if REFUSED.with(|r| r.get()) {
        return Error::shader(format!(
            "{name}: translating it ran out of memory: glslang may hold at most {} MiB in a browser",
            C_HEAP_LIMIT >> 20
        ));
    }
    match how {
        Ended::CallStack | Ended::OutOfBounds => Error::shader(format!(
            "{name}: translating it ran out of stack: it nests too deeply for a browser (natively it has a deeper stack)"
        )),
        Ended::Trapped => Error::Internal(format!(
            "translating {name} stopped with a trap (an abort or a panic inside glslang or atomport)"
        )),
    }
}

/// Header before each C allocation: its layout, for `free` and `realloc`.
const HEADER: usize = 16;

/// Allocates `size` bytes aligned to `align` (a power of two), with the
/// header before them. Never null: what cannot be had traps ([`refuse`]).
unsafe fn c_alloc(size: usize, align: usize) -> *mut u8 {
    let align = align.max(HEADER);
    let held = C_HELD.with(Cell::get);
    let layout = size
        .checked_add(align)
        .filter(|t| held.saturating_add(*t) <= C_HEAP_LIMIT)
        .and_then(|t| Layout::from_size_align(t, align).ok());
    let Some(layout) = layout else { refuse() };
    let total = layout.size();
    // SAFETY: `layout` has a non-zero size (at least `HEADER`).
    let base = unsafe { alloc(layout) };
    if base.is_null() {
        refuse();
    }
    C_HELD.with(|h| h.set(held + total));
    // SAFETY: the block is `align` ≥ 16 bytes longer than asked, so the
    // header (two words before the pointer) lies inside it.
    unsafe {
        let p = base.add(align);
        p.cast::<usize>().sub(1).write(total);
        p.cast::<usize>().sub(2).write(align);
        p
    }
}

/// Ends the work [`contain`] runs, out of memory: a trap, since the C++
/// asking would write through the null pointer `malloc` returns.
fn refuse() -> ! {
    REFUSED.with(|r| r.set(true));
    core::arch::wasm32::unreachable()
}

/// The layout a pointer from [`c_alloc`] was made with, and its block's base.
unsafe fn c_layout(p: *mut u8) -> (*mut u8, Layout) {
    // SAFETY: `p` came from `c_alloc`, which wrote the header.
    unsafe {
        let total = p.cast::<usize>().sub(1).read();
        let align = p.cast::<usize>().sub(2).read();
        (
            p.sub(align),
            Layout::from_size_align_unchecked(total, align),
        )
    }
}

/// C's `malloc`, for glslang.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn malloc(size: usize) -> *mut u8 {
    unsafe { c_alloc(size, HEADER) }
}

/// C's `calloc`, for glslang.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn calloc(count: usize, size: usize) -> *mut u8 {
    let Some(n) = count.checked_mul(size) else {
        refuse()
    };
    // SAFETY: the block holds `n` bytes.
    unsafe {
        let p = c_alloc(n, HEADER);
        p.write_bytes(0, n);
        p
    }
}

/// C's `free`, for glslang.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn free(p: *mut u8) {
    if p.is_null() {
        return;
    }
    // SAFETY: `p` came from `c_alloc` and is freed once, as C requires.
    unsafe {
        let (base, layout) = c_layout(p);
        C_HELD.with(|h| h.set(h.get().saturating_sub(layout.size())));
        dealloc(base, layout);
    }
}

/// C's `realloc`, for glslang.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn realloc(p: *mut u8, size: usize) -> *mut u8 {
    if p.is_null() {
        return unsafe { malloc(size) };
    }
    // SAFETY: `p` came from `c_alloc`; the new block holds `size` bytes and
    // the old one `layout.size() - align` bytes.
    unsafe {
        let (_, layout) = c_layout(p);
        let old = layout.size() - layout.align();
        let q = c_alloc(size, layout.align());
        q.copy_from_nonoverlapping(p, old.min(size));
        free(p);
        q
    }
}

/// C11's `aligned_alloc`, for glslang.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aligned_alloc(align: usize, size: usize) -> *mut u8 {
    if !align.is_power_of_two() {
        return std::ptr::null_mut();
    }
    unsafe { c_alloc(size, align) }
}

/// POSIX's `posix_memalign`, for glslang.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn posix_memalign(out: *mut *mut u8, align: usize, size: usize) -> i32 {
    const EINVAL: i32 = 28;
    if !align.is_power_of_two() || align < size_of::<usize>() {
        return EINVAL;
    }
    // SAFETY: the caller passes a place for the pointer.
    unsafe { out.write(c_alloc(size, align)) };
    0
}

/// wasi-libc's own name for `malloc`, which parts of it call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __libc_malloc(size: usize) -> *mut u8 {
    unsafe { malloc(size) }
}

/// wasi-libc's own name for `calloc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __libc_calloc(count: usize, size: usize) -> *mut u8 {
    unsafe { calloc(count, size) }
}

/// wasi-libc's own name for `free`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __libc_free(p: *mut u8) {
    unsafe { free(p) }
}

/// The bytes usable at `p`, as `malloc_usable_size` reports them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn malloc_usable_size(p: *mut u8) -> usize {
    if p.is_null() {
        return 0;
    }
    // SAFETY: `p` came from `c_alloc`.
    let (_, layout) = unsafe { c_layout(p) };
    layout.size() - layout.align()
}

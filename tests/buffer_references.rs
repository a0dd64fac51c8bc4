//! Buffer references (`GL_EXT_buffer_reference`): addressable buffers live
//! in one arena binding ([`atomport::Arena`]) and references are addresses
//! into it. A radix sort's histogram passes getting their key and histogram
//! buffers by reference in push constants, with atomics through the
//! reference; a linked list built on a node pool reached by reference,
//! with `atomicAdd` allocation and references stored in the nodes; and
//! accesses through a null reference, which read 0 and write nothing. Each
//! checked against a CPU model on every backend with 64-bit integers, and
//! the same through the command line (`--buffer @NAME`, `@NAME` values),
//! which translates for each adapter (on llvmpipe's GL, without 64-bit
//! integers, addresses are pairs of words); elsewhere the dispatch of a
//! kernel translated with 64-bit integers names the missing feature. The original cannot
//! run natively (wgpu gives buffers no device addresses), which `diff
//! --native` says.

mod common;

use atomport::{Arena, Bind, Buffer, Context, Error, Kernel, SourceOptions};

const HISTOGRAM: &str = "#version 450
#extension GL_EXT_buffer_reference : require
layout(local_size_x = 64) in;
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer Keys { uint keys[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Histogram { uint bins[256]; };
layout(push_constant) uniform Pass {
    Keys keys;
    Histogram histogram;
    uint shift;
    uint count;
} pc;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.count) {
        return;
    }
    uint digit = (pc.keys.keys[i] >> pc.shift) & 0xFFu;
    atomicAdd(pc.histogram.bins[digit], 1u);
}
";

/// The contexts with 64-bit integers; the others must refuse naming them.
fn contexts(k: &Kernel) -> Vec<Context> {
    let mut out = Vec::new();
    for ctx in common::contexts_with_available(wgpu::Features::SHADER_INT64) {
        if ctx
            .device()
            .features()
            .contains(wgpu::Features::SHADER_INT64)
        {
            out.push(ctx);
            continue;
        }
        let buf = Buffer::zeroed(&ctx, 64).unwrap();
        let binds: Vec<Bind> = k
            .bindings()
            .iter()
            .map(|b| Bind::new(b.group, b.binding, &buf))
            .collect();
        match ctx.dispatch(k, [1, 1, 1], &binds) {
            Err(e @ Error::MissingFeature { .. }) => {
                assert!(e.to_string().contains("SHADER_INT64"), "{e}");
                println!("{}: refused as it should be: {e}", ctx.backend_name());
            }
            other => panic!(
                "{}: expected the missing feature, got {other:?}",
                ctx.backend_name()
            ),
        }
    }
    out
}

fn push_bytes(addresses: &[u64], words: &[u32]) -> Vec<u8> {
    let mut b: Vec<u8> = addresses.iter().flat_map(|a| a.to_le_bytes()).collect();
    b.extend(words.iter().flat_map(|w| w.to_le_bytes()));
    b
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// `atomport run ARGS --backend B --json`'s output. `run` translates for
/// its adapter: on llvmpipe GL, which lacks 64-bit integers, addresses are
/// pairs of 32-bit words.
fn run_json_on(b: &str, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--backend", b, "--json"]);
    let o = common::atomport(&all);
    assert!(o.status.success(), "{b}: {}", common::stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// Addressable buffer `name` of a run's JSON.
fn addressable<'v>(v: &'v serde_json::Value, name: &str) -> &'v serde_json::Value {
    v["addressable"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["name"] == name)
        .unwrap_or_else(|| panic!("no addressable buffer {name}: {v}"))
}

#[test]
fn radix_histogram_passes_reach_their_buffers_by_reference() {
    let k = Kernel::from_glsl(HISTOGRAM, &SourceOptions::named("histogram.comp")).unwrap();
    assert!(
        k.binding_named(Arena::BINDING).is_ok(),
        "{}",
        k.binding_names()
    );
    // Push constants of references are a uniform buffer, as others are.
    assert_eq!(
        k.binding_named("pc").unwrap().kind,
        atomport::BindingKind::Uniform
    );
    let mut rng = common::Rng(0x4ad1);
    let keys: Vec<u32> = (0..1000).map(|_| rng.next_u32()).collect();
    let mut want = vec![vec![0u32; 256]; 4];
    for &key in &keys {
        for (pass, h) in want.iter_mut().enumerate() {
            h[((key >> (8 * pass)) & 0xff) as usize] += 1;
        }
    }
    let key_bytes: Vec<u8> = keys.iter().flat_map(|k| k.to_le_bytes()).collect();
    for ctx in contexts(&k) {
        let zero = vec![0u8; 1024];
        let arena = Arena::new(
            &ctx,
            &[
                ("keys", &key_bytes),
                ("h0", &zero),
                ("h1", &zero),
                ("h2", &zero),
                ("h3", &zero),
            ],
        )
        .unwrap();
        for pass in 0..4u32 {
            let push = Buffer::from_bytes(
                &ctx,
                &push_bytes(
                    &[
                        arena.address("keys").unwrap(),
                        arena.address(&format!("h{pass}")).unwrap(),
                    ],
                    &[8 * pass, keys.len() as u32],
                ),
            )
            .unwrap();
            let groups = [keys.len().div_ceil(64) as u32, 1, 1];
            ctx.dispatch(&k, groups, &[Bind::named("pc", &push), arena.bind()])
                .unwrap_or_else(|e| panic!("{}: {e}", ctx.backend_name()));
        }
        for (pass, h) in want.iter().enumerate() {
            let got = words(&arena.read(&ctx, &format!("h{pass}")).unwrap());
            assert_eq!(&got, h, "{}: pass {pass}", ctx.backend_name());
        }
        assert_eq!(words(&arena.read(&ctx, "keys").unwrap()), keys);
    }
    // No native run: wgpu has no device addresses.
    let file = common::temp_file("refs", "histogram.comp", HISTOGRAM);
    let o = common::atomport(&[
        "diff",
        &file,
        "--groups",
        "1",
        "--buffer",
        "pc=u32:6",
        "--buffer",
        "atomport_arena=u32:8",
        "--backends",
        "native,vulkan",
    ]);
    common::assert_fails(&o, 1, "buffer references");
}

const LIST: &str = "#version 450
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;
layout(buffer_reference) buffer Node;
layout(buffer_reference, std430, buffer_reference_align = 16) buffer Node {
    uint value;
    uint index;
    Node next;
};
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Heads { uint allocated; uint head[4]; };
layout(std430, binding = 0) readonly buffer Roots { Node pool; Heads heads; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint slot = atomicAdd(heads.allocated, 1u);
    Node node = Node(uint64_t(pool) + uint64_t(slot) * 16ul);
    node.value = i * 3u + 1u;
    node.index = slot;
    uint list = i % 4u;
    uint previous = atomicExchange(heads.head[list], slot + 1u);
    node.next = previous == 0u ? Node(0ul) : Node(uint64_t(pool) + uint64_t(previous - 1u) * 16ul);
}
";

#[test]
fn a_linked_list_built_on_a_node_pool_by_reference() {
    let k = Kernel::from_glsl(LIST, &SourceOptions::named("list.comp")).unwrap();
    for ctx in contexts(&k) {
        build_list(&ctx, &k);
    }
}

#[test]
fn a_node_pool_reached_atomically_and_plainly_is_one_binding_for_webgpu() {
    // The pool's words are allocated with atomics and written plainly:
    // WebGPU binds a buffer once where it is written, so the arena is one
    // view, its words atomic, and the addresses pairs of words (no 64-bit
    // integers needed, so llvmpipe GL runs it too).
    let mut o = SourceOptions::named("list.comp");
    o.target = atomport::Platform::WebGpu;
    let k = Kernel::from_glsl(LIST, &o).unwrap();
    let buffers = k.bindings().iter().filter(|b| b.kind.is_buffer()).count();
    assert_eq!(buffers, 2, "{:?}", k.bindings());
    assert!(!k.wgsl().contains("_atomic"), "{}", k.wgsl());
    for ctx in common::contexts(wgpu::Features::empty()) {
        build_list(&ctx, &k);
    }
}

/// Runs LIST's kernel `k` on `ctx` and walks the lists it built.
fn build_list(ctx: &Context, k: &Kernel) {
    let n = 128u32;
    let arena = Arena::new(
        ctx,
        &[("pool", &vec![0u8; n as usize * 16]), ("heads", &[0u8; 20])],
    )
    .unwrap();
    let pool = arena.address("pool").unwrap();
    let roots = Buffer::from_bytes(
        ctx,
        &push_bytes(&[pool, arena.address("heads").unwrap()], &[]),
    )
    .unwrap();
    ctx.dispatch(
        k,
        [n / 64, 1, 1],
        &[Bind::named("Roots", &roots), arena.bind()],
    )
    .unwrap_or_else(|e| panic!("{}: {e}", ctx.backend_name()));
    let nodes = arena.read(ctx, "pool").unwrap();
    let heads = words(&arena.read(ctx, "heads").unwrap());
    assert_eq!(heads[0], n, "every invocation allocated one node");
    // Walk each list by the addresses stored in the nodes.
    let mut seen = Vec::new();
    for list in 0..4u32 {
        let mut at = heads[1 + list as usize];
        let mut address = if at == 0 {
            0
        } else {
            pool + u64::from(at - 1) * 16
        };
        let mut steps = 0;
        while address != 0 {
            assert!(steps <= n, "list {list} loops");
            let slot = ((address - pool) / 16) as usize;
            let node = &nodes[slot * 16..slot * 16 + 16];
            let value = u32::from_le_bytes(node[0..4].try_into().unwrap());
            let index = u32::from_le_bytes(node[4..8].try_into().unwrap());
            assert_eq!(index as usize, slot);
            let invocation = (value - 1) / 3;
            assert_eq!(invocation % 4, list, "node {slot} is on the wrong list");
            seen.push(invocation);
            address = u64::from_le_bytes(node[8..16].try_into().unwrap());
            at = at.wrapping_sub(1);
            steps += 1;
        }
    }
    seen.sort_unstable();
    assert_eq!(seen, (0..n).collect::<Vec<u32>>(), "{}", ctx.backend_name());
}

const NULL: &str = "#version 450
#extension GL_EXT_buffer_reference : require
layout(local_size_x = 1) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Cell { uint v[4]; };
layout(std430, binding = 0) buffer Io { Cell cell; Cell nowhere; uint seen[4]; };
void main() {
    for (uint k = 0u; k < 4u; ++k) {
        seen[k] = nowhere.v[k] + cell.v[k];
        nowhere.v[k] = 99u;
    }
}
";

#[test]
fn a_reference_outside_every_buffer_reads_zero_and_writes_nothing() {
    let k = Kernel::from_glsl(NULL, &SourceOptions::named("null.comp")).unwrap();
    for ctx in contexts(&k) {
        let cell: Vec<u8> = [5u32, 6, 7, 8]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        let arena = Arena::new(&ctx, &[("cell", &cell)]).unwrap();
        for nowhere in [0u64, 8, Arena::BASE + 4096, u64::MAX - 3] {
            let mut io = push_bytes(&[arena.address("cell").unwrap(), nowhere], &[0; 4]);
            io.resize(32, 0);
            let io = Buffer::from_bytes(&ctx, &io).unwrap();
            ctx.dispatch(&k, [1, 1, 1], &[Bind::named("Io", &io), arena.bind()])
                .unwrap();
            let out: Vec<u32> = io.read(&ctx).unwrap();
            assert_eq!(
                out[4..8],
                [5, 6, 7, 8],
                "{}: address {nowhere:#x}",
                ctx.backend_name()
            );
            assert_eq!(words(&arena.read(&ctx, "cell").unwrap()), [5, 6, 7, 8]);
        }
    }
}

#[test]
fn the_arena_names_what_it_lacks_and_checks_its_size() {
    let ctx = common::contexts(wgpu::Features::empty()).remove(0);
    let arena = Arena::new(&ctx, &[("a", &[1, 2, 3]), ("b", &[4])]).unwrap();
    assert_eq!(arena.address("a").unwrap(), Arena::BASE);
    assert_eq!(arena.address("b").unwrap(), Arena::BASE + Arena::ALIGN);
    match arena.address("c") {
        Err(Error::UnknownName(m)) => assert!(m.contains("its buffers: a, b"), "{m}"),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        Arena::new(&ctx, &[("a", &[1]), ("a", &[2])]),
        Err(Error::Resource(_))
    ));
}

#[test]
fn the_cli_makes_addressable_buffers_and_writes_their_addresses() {
    let file = common::temp_file("refs", "histogram.comp", HISTOGRAM);
    for b in common::backend_names() {
        // Keys 0..63 by reference, each landing in its own bin, which
        // starts at its index.
        let v = run_json_on(
            b,
            &[
                &file,
                "--groups",
                "1",
                "--buffer",
                "@keys=u32:64:iota",
                "--buffer",
                "@bins=u32:256:iota",
                "--push",
                "keys=@keys",
                "--push",
                "histogram=@bins",
                "--push",
                "shift=0",
                "--push",
                "count=64",
            ],
        );
        let (keys, bins) = (addressable(&v, "keys"), addressable(&v, "bins"));
        assert_eq!(keys["address"], Arena::BASE, "{b}");
        assert_eq!(bins["address"], Arena::BASE + 256, "{b}");
        assert_eq!(keys["type"], "u32");
        let want_keys: Vec<u64> = (0..64).collect();
        let want_bins: Vec<u64> = (0..256).map(|k| k + u64::from(k < 64)).collect();
        assert_eq!(keys["data"], serde_json::json!(want_keys), "{b}");
        assert_eq!(bins["data"], serde_json::json!(want_bins), "{b}");
        // The listing names them too.
        let o = common::atomport(&[
            "run",
            &file,
            "--groups",
            "1",
            "--buffer",
            "@keys=u32:[7]",
            "--buffer",
            "@bins=u32:256",
            "--push",
            "keys=@keys",
            "--push",
            "histogram=@bins",
            "--push",
            "shift=0",
            "--push",
            "count=1",
            "--backend",
            b,
        ]);
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(
            text.contains("addressable buffer `bins` at 0x100000010: u32[256]"),
            "{b}: {text}"
        );
    }
}

#[test]
fn the_cli_writes_addresses_in_buffers() {
    let file = common::temp_file("refs", "list.comp", LIST);
    for b in common::backend_names() {
        // The roots hold the pool's and the heads' addresses; the pool
        // has room for 64 nodes of 16 bytes.
        let v = run_json_on(
            b,
            &[
                &file,
                "--groups",
                "1",
                "--buffer",
                "Roots=u64:[@pool,@heads]",
                "--buffer",
                "@heads=u32:5",
                "--buffer",
                "@pool=u32:256",
            ],
        );
        let words = |n: &str| -> Vec<u64> {
            addressable(&v, n)["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap())
                .collect()
        };
        let (heads, pool) = (words("heads"), words("pool"));
        let pool_address = Arena::BASE + 32;
        // Every invocation allocated one node; following each list from
        // its head visits every invocation of that list once.
        assert_eq!(heads[0], 64, "{b}");
        let mut seen = Vec::new();
        for list in 0..4 {
            let mut slot = heads[1 + list];
            while slot != 0 {
                let node = &pool[(slot as usize - 1) * 4..slot as usize * 4];
                let i = (node[0] - 1) / 3;
                assert_eq!(i % 4, list as u64, "{b}");
                assert_eq!(node[1], slot - 1, "{b}");
                seen.push(i);
                let next = node[2] | node[3] << 32;
                slot = if next == 0 {
                    0
                } else {
                    (next - pool_address) / 16 + 1
                };
            }
        }
        seen.sort();
        assert_eq!(seen, (0..64).collect::<Vec<u64>>(), "{b}");
    }
}

#[test]
fn the_cli_names_what_is_wrong_with_addresses() {
    let file = common::temp_file("refs", "histogram.comp", HISTOGRAM);
    let run = |extra: &[&str]| {
        let mut args = vec!["run", file.as_str(), "--groups", "1"];
        args.extend_from_slice(extra);
        common::atomport(&args)
    };
    common::assert_fails(&run(&["--push", "keys=-1"]), 2, "is not a valid u64 value");
    common::assert_fails_in_one_line(
        &run(&["--buffer", "@keys=u32:4", "--push", "keys=@nope"]),
        2,
        "`@nope` names no addressable buffer (given: @keys",
    );
    common::assert_fails(
        &run(&["--buffer", "pc=u32:[@keys]"]),
        2,
        "`@keys` is an address, 64 bits",
    );
    common::assert_fails(
        &run(&["--buffer", "@1x=u32:4"]),
        2,
        "an addressable buffer's name is an identifier",
    );
    common::assert_fails_in_one_line(
        &run(&["--buffer", "@k=u32:4", "--buffer", "@k=u32:4"]),
        2,
        "two buffers named `k`",
    );
    common::assert_fails_in_one_line(
        &run(&["--buffer", "@k=u32:4", "--buffer", "atomport_arena=u32:4"]),
        2,
        "give one or the other",
    );
    // Checked before any byte is made: five buffers of 1 GiB.
    let mut huge = Vec::new();
    for k in 0..5 {
        huge.extend(["--buffer".to_string(), format!("@b{k}=u8:1073741824")]);
    }
    let huge: Vec<&str> = huge.iter().map(String::as_str).collect();
    common::assert_fails_in_one_line(
        &run(&huge),
        1,
        "the arena of addressable buffers, in bytes, is 5368709136, over the adapter's limit max_storage_buffer_binding_size",
    );
    let plain = common::temp_file(
        "refs",
        "plain.comp",
        "#version 450\nlayout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer B { uint x[]; };\nvoid main() { x[0] = 1u; }\n",
    );
    let o = common::atomport(&[
        "run", &plain, "--groups", "1", "--buffer", "B=u32:1", "--buffer", "@k=u32:4",
    ]);
    common::assert_fails_in_one_line(&o, 2, "reaches no buffer by address");
}

#[test]
fn the_cli_writes_an_address_as_a_uvec2() {
    // GL_EXT_buffer_reference_uvec2: the address as its low and high words.
    let file = common::temp_file(
        "refs",
        "uvec2.comp",
        "#version 450
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
layout(local_size_x = 4) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Data { uint v[]; };
layout(push_constant) uniform P { uvec2 data; uint add; } pc;
void main() {
    Data d = Data(pc.data);
    d.v[gl_LocalInvocationID.x] += pc.add;
}
",
    );
    for b in common::backend_names() {
        let v = run_json_on(
            b,
            &[
                &file,
                "--groups",
                "1",
                "--buffer",
                "@pad=u8:[1]",
                "--buffer",
                "@d=u32:[1,2,3,4]",
                "--push",
                "data=@d",
                "--push",
                "add=10",
            ],
        );
        let d = &v["addressable"][1];
        assert_eq!(d["name"], "d");
        assert_eq!(d["data"], serde_json::json!([11, 12, 13, 14]), "{b}");
        let pc = v["push_constants"].as_array().unwrap();
        assert_eq!(
            pc[0]["value"],
            serde_json::json!([Arena::ALIGN, 1]),
            "{b}: the address's low and high words"
        );
    }
}

const EVERY_ATOMIC: &str = "#version 450
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_EXT_shader_atomic_float : require
#extension GL_EXT_shader_atomic_float2 : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 64) in;
layout(buffer_reference, std430, buffer_reference_align = 16) buffer Tallies {
    uint64_t bytes;
    int64_t lowest;
    uint64_t seen;
    int smallest;
    float total;
    double exact;
    float16_t halfTotal;
    float16_t halfMax;
    uint64_t swapped;
};
layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer Sizes { uint size[]; };
layout(push_constant) uniform Pass { Tallies tallies; Sizes sizes; } pc;
void main() {
    uint i = gl_LocalInvocationID.x;
    uint n = pc.sizes.size[i];
    Tallies t = pc.tallies;
    atomicAdd(t.bytes, uint64_t(n) << 32);
    atomicMin(t.lowest, int64_t(n) - 3000000000l);
    atomicOr(t.seen, 1ul << (n % 64u));
    atomicMin(t.smallest, int(n) - 600);
    atomicAdd(t.total, float(n) * 0.5);
    atomicAdd(t.exact, double(n) * 0.125lf);
    atomicAdd(t.halfTotal, float16_t(0.25));
    atomicMax(t.halfMax, float16_t(float(n % 512u)));
    atomicCompSwap(t.swapped, uint64_t(i), uint64_t(i) + 1ul);
}
";

#[test]
fn atomics_of_every_width_go_through_a_reference() {
    let k = Kernel::from_glsl(EVERY_ATOMIC, &SourceOptions::named("every_atomic.comp")).unwrap();
    let needed = k.required_features();
    assert!(needed.contains(wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS));
    let mut rng = common::Rng(0xa70);
    let sizes: Vec<u32> = (0..64).map(|_| rng.below(1000)).collect();
    let sizes_bytes: Vec<u8> = sizes.iter().flat_map(|s| s.to_le_bytes()).collect();
    for ctx in common::contexts_with_available(needed) {
        if !ctx.device().features().contains(needed) {
            let buf = Buffer::zeroed(&ctx, 64).unwrap();
            let binds: Vec<Bind> = k
                .bindings()
                .iter()
                .map(|b| Bind::new(b.group, b.binding, &buf))
                .collect();
            let e = ctx.dispatch(&k, [1, 1, 1], &binds).unwrap_err();
            assert!(e.to_string().contains("SHADER_INT64_ATOMIC_ALL_OPS"), "{e}");
            continue;
        }
        let arena = Arena::new(&ctx, &[("tallies", &[0u8; 56]), ("sizes", &sizes_bytes)]).unwrap();
        let push = Buffer::from_bytes(
            &ctx,
            &push_bytes(
                &[
                    arena.address("tallies").unwrap(),
                    arena.address("sizes").unwrap(),
                ],
                &[],
            ),
        )
        .unwrap();
        ctx.dispatch(&k, [1, 1, 1], &[Bind::named("pc", &push), arena.bind()])
            .unwrap_or_else(|e| panic!("{}: {e}", ctx.backend_name()));
        let t = arena.read(&ctx, "tallies").unwrap();
        let u64_at = |o: usize| u64::from_le_bytes(t[o..o + 8].try_into().unwrap());
        let name = ctx.backend_name();
        let sum: u64 = sizes.iter().map(|&n| u64::from(n)).sum();
        assert_eq!(u64_at(0), sum << 32, "{name}: 64-bit add");
        let min = sizes
            .iter()
            .map(|&n| i64::from(n) - 3_000_000_000)
            .min()
            .unwrap();
        assert_eq!(u64_at(8) as i64, min.min(0), "{name}: 64-bit signed min");
        let seen = sizes.iter().fold(0u64, |m, &n| m | 1 << (n % 64));
        assert_eq!(u64_at(16), seen, "{name}: 64-bit or");
        let smallest = sizes.iter().map(|&n| n as i32 - 600).min().unwrap().min(0);
        assert_eq!(
            i32::from_le_bytes(t[24..28].try_into().unwrap()),
            smallest,
            "{name}"
        );
        let total: f32 = sizes.iter().map(|&n| n as f32 * 0.5).sum();
        assert_eq!(
            f32::from_le_bytes(t[28..32].try_into().unwrap()),
            total,
            "{name}"
        );
        let exact: f64 = sizes.iter().map(|&n| f64::from(n) * 0.125).sum();
        assert_eq!(
            f64::from_le_bytes(t[32..40].try_into().unwrap()),
            exact,
            "{name}"
        );
        let half = |o: usize| atomport::half_to_f32(u16::from_le_bytes([t[o], t[o + 1]]));
        assert_eq!(half(40), 16.0, "{name}: half add");
        let half_max = sizes.iter().map(|&n| n % 512).max().unwrap() as f32;
        assert_eq!(half(42), half_max, "{name}: half max");
        // Each compare-swap from i to i + 1 takes only in turn.
        assert!((1..=64).contains(&u64_at(48)), "{name}: compare-swap");
    }
}

const MESHES: &str = "#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference2 : require
#extension GL_EXT_scalar_block_layout : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;
struct Vertex { vec3 position; vec2 uv; };
layout(buffer_reference, scalar, buffer_reference_align = 4) readonly buffer Vertices { Vertex v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Stats { vec3 lo; uint bright; };
layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer Meshes { Vertices vertices[]; };
layout(push_constant, scalar) uniform Constants { Meshes meshes; Stats stats; uint meshCount; uint vertexCount; } pc;

float weight(Vertices vs, uint i) {
    Vertex x = vs.v[i];
    return x.position.x + x.position.y + x.position.z + x.uv.x;
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.vertexCount) {
        return;
    }
    for (uint m = 0u; m < pc.meshCount; ++m) {
        Vertices vs = pc.meshes.vertices[m];
        if (uint64_t(vs) == 0ul) {
            continue;
        }
        if (weight(vs, i) > 1.0) {
            atomicAdd(pc.stats.bright, 1u);
        }
    }
}
";

#[test]
fn scalar_vertices_reached_through_a_table_of_references() {
    // A GPU-driven pass: a table of vertex-buffer references (one null),
    // scalar-layout vertices of 20 bytes, a reference passed to a function.
    let file = common::temp_file("refs", "meshes.comp", MESHES);
    let mut rng = common::Rng(0x3e5);
    let vertices: Vec<f32> = (0..5 * 48).map(|_| rng.below(9) as f32 * 0.125).collect();
    let bright = vertices
        .chunks_exact(5)
        .filter(|v| v[0] + v[1] + v[2] + v[3] > 1.0)
        .count() as u64;
    let list = |v: &[f32]| {
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let verts = format!("@verts=f32:[{}]", list(&vertices));
    for b in common::backend_names() {
        let v = run_json_on(
            b,
            &[
                &file,
                "--groups",
                "1",
                "--buffer",
                &verts,
                "--buffer",
                "@meshes=u64:[@verts,0,@verts]",
                "--buffer",
                "@stats=u32:4",
                "--push",
                "meshes=@meshes",
                "--push",
                "stats=@stats",
                "--push",
                "meshCount=3",
                "--push",
                "vertexCount=48",
            ],
        );
        // Two meshes, the null one skipped.
        assert_eq!(
            addressable(&v, "stats")["data"][3],
            2 * bright,
            "{b}: bright vertices"
        );
    }
}

/// References reached only through a struct in the push constants, and the
/// `uvec2` form (GL_EXT_buffer_reference_uvec2), both ways: a batch of
/// streams as a renderer's culling pass passes them.
const THROUGH_STRUCTS: &str = "#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
layout(local_size_x = 32) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Floats { float v[]; };
struct Batch { Floats src; Floats dst; uint count; };
layout(push_constant) uniform Push { Batch batch; uvec2 extra; } pc;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.batch.count) {
        return;
    }
    Floats e = Floats(pc.extra);
    pc.batch.dst.v[i] = pc.batch.src.v[i] * 2.0 + e.v[i];
    uvec2 back = uvec2(pc.batch.dst);
    Floats(back).v[i] += 1.0;
}
";

#[test]
fn references_through_push_constant_structs_and_uvec2_equal_the_cpu() {
    let k = common::glsl(THROUGH_STRUCTS);
    let floats = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let src: Vec<f32> = (0..32).map(|i| i as f32 * 0.5).collect();
    let extra: Vec<f32> = (0..32).map(|i| 100.0 - i as f32).collect();
    let count = 20usize;
    for ctx in contexts(&k) {
        let arena = Arena::new(
            &ctx,
            &[
                ("src", &floats(&src)),
                ("dst", &[0u8; 128]),
                ("extra", &floats(&extra)),
            ],
        )
        .unwrap();
        let address = |n: &str| arena.address(n).unwrap();
        // Batch { src, dst, count } is 24 bytes (8-aligned); extra follows.
        let mut push = push_bytes(&[address("src"), address("dst")], &[count as u32, 0]);
        push.extend(address("extra").to_le_bytes());
        let push = Buffer::from_bytes(&ctx, &push).unwrap();
        ctx.dispatch(&k, [1, 1, 1], &[Bind::named("pc", &push), arena.bind()])
            .unwrap_or_else(|e| panic!("{}: {e}", ctx.backend_name()));
        let got: Vec<f32> = arena
            .read(&ctx, "dst")
            .unwrap()
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let want: Vec<f32> = (0..32)
            .map(|i| {
                if i < count {
                    src[i] * 2.0 + extra[i] + 1.0
                } else {
                    0.0
                }
            })
            .collect();
        assert_eq!(got, want, "{}", ctx.backend_name());
    }
}

/// A reference to a block of narrow values that ends in a runtime array
/// (`uint16_t count; uint8_t flags[];`), as visibility buffers keep
/// per-triangle flags: atomport lays the block out itself, the array
/// adding no size. Each invocation sets its triangle's flag from the
/// count and tallies the flags it finds, on every backend, against the CPU.
#[test]
fn narrow_values_in_a_block_ending_in_a_runtime_array_by_reference() {
    let file = common::temp_file(
        "refs-narrow",
        "flags.comp",
        "#version 450
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 16) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Flags { uint16_t count; uint8_t flags[]; };
layout(push_constant) uniform Push { Flags triangles; };
layout(set = 0, binding = 0) buffer Tally { uint set_flags; uint seen; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint n = uint(triangles.count);
    if (i < n) {
        uint8_t old = triangles.flags[i];
        triangles.flags[i] = uint8_t(old | uint8_t(1u << (i % 8u)));
        atomicAdd(seen, uint(old));
        atomicAdd(set_flags, 1u);
    }
}
",
    );
    // count = 13 (bytes 0-1), flags from byte 2: 2, 3, 4, …
    let bytes: Vec<String> = [13u32, 0]
        .into_iter()
        .chain(2..32)
        .map(|b| b.to_string())
        .collect();
    let spec = format!("@tri=u8:[{}]", bytes.join(","));
    for b in common::backend_names() {
        let v = run_json_on(
            b,
            &[
                &file,
                "--groups",
                "1",
                "--buffer",
                &spec,
                "--push",
                "triangles=@tri",
                "--buffer",
                "Tally=u32:2",
            ],
        );
        let tri = addressable(&v, "tri");
        let mut want: Vec<u64> = [13u64, 0].into_iter().chain(2..32).collect();
        for i in 0..13 {
            want[2 + i] |= 1 << (i % 8);
        }
        assert_eq!(tri["data"], serde_json::json!(want), "{b}");
        let seen: u64 = (2..15).sum();
        let tally = common::binding(&v, "Tally");
        assert_eq!(tally["data"], serde_json::json!([13, seen]), "{b}");
    }
}

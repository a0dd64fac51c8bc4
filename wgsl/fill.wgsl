// Each invocation writes its own consecutive run of words: a kernel whose
// cost is the dispatch and the readback, for the overhead benchmark.
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
    let per = arrayLength(&out) / (n.x * n.y * 64u);
    let base = (id.y * n.x * 64u + id.x) * per;
    for (var i = 0u; i < per; i++) {
        out[base + i] = base + i;
    }
}

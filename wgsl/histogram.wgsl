// 256-bin histogram: each invocation adds one input's low byte to its bin.
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> bins: array<atomic<u32>, 256>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < arrayLength(&input) {
        atomicAdd(&bins[input[id.x] & 255u], 1u);
    }
}

// Each invocation does params[0] × params[1] atomic increments of `count`:
// long-running work with side effects no compiler may remove, for the timeout
// tests. Two nested loops because llvmpipe caps one loop at 65535 iterations.
@group(0) @binding(0) var<storage, read> params: array<u32, 2>;
@group(0) @binding(1) var<storage, read_write> count: atomic<u32>;

@compute @workgroup_size(64)
fn main() {
    for (var i = 0u; i < params[0]; i++) {
        for (var j = 0u; j < params[1]; j++) {
            atomicAdd(&count, 1u);
        }
    }
}

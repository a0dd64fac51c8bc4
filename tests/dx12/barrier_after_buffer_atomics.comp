#version 450
// Driver finding on DX12 through vkd3d 1.6 on lavapipe (Mesa 25.0): after a
// barrier, one invocation reads a storage-buffer counter every invocation of
// the workgroup added to atomically. Vulkan and GL give seen = 64; DX12 gives
// 8 (only the first SIMD batch of lavapipe's lanes). The same pattern on
// shared memory gives 64 on DX12 too. scripts/test-dx12 runs it every time
// and says whether the finding still holds.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Counter { uint count; uint seen; };
void main() {
    atomicAdd(count, 1u);
    memoryBarrierBuffer();
    barrier();
    if (gl_LocalInvocationIndex == 0u) {
        seen = atomicAdd(count, 0u);
    }
}
// run: --groups 1 --buffer Counter=u32:2

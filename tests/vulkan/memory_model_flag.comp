#version 450
// Message passing inside a workgroup under the Vulkan memory model: a
// producer writes a payload, releases a flag; consumers acquire it.
#pragma use_vulkan_memory_model
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 64) in;

layout(set = 0, binding = 0) coherent buffer Mailbox {
    uint flag;
    uint payload[64];
} box;
layout(set = 0, binding = 1) buffer Seen { uint seen[]; };
shared uint s_ready;

void main() {
    uint lid = gl_LocalInvocationIndex;
    if (lid == 0u) {
        atomicStore(s_ready, 0u, gl_ScopeWorkgroup, gl_StorageSemanticsShared, gl_SemanticsRelease);
    }
    barrier();
    box.payload[lid] = lid * 3u + 1u;
    atomicAdd(box.flag, 1u, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup,
                   gl_StorageSemanticsBuffer | gl_StorageSemanticsShared,
                   gl_SemanticsAcquireRelease | gl_SemanticsMakeAvailable | gl_SemanticsMakeVisible);
    uint n = atomicLoad(box.flag, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire);
    uint neighbour = box.payload[(lid + 1u) % 64u];
    uint prev = atomicCompSwap(s_ready, 0u, n, gl_ScopeWorkgroup,
                               gl_StorageSemanticsShared, gl_SemanticsAcquireRelease,
                               gl_StorageSemanticsShared, gl_SemanticsAcquire);
    seen[gl_GlobalInvocationID.x] = neighbour + (prev == 0u ? 1000u : 0u) + (n >= 64u ? 0u : 500000u);
}
// run: --groups 1 --buffer box=u32:65:fill=9 --buffer Seen=u32:64
// compare: Seen=labels: the invocation whose compare-exchange on s_ready lands first gets +1000, whichever ran first; every other value is its neighbour's payload, all distinct

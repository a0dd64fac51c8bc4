#version 450
// A work loop that stops at a sentinel read from a read-write buffer, with a
// barrier each round. WGSL cannot prove the break uniform, but GLSL requires
// every invocation to reach each barrier together, so the sentinel has one
// value across the workgroup: atomport takes that value through a
// workgroupUniformLoad, and the barriers are uniform to WGSL too.
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Queue { uint head; uint items[]; };
shared uint batch[32];

void main() {
    for (uint round = 0u; round < 8u; round++) {
        if (items[round] == 0xffffffffu) {
            break;
        }
        batch[gl_LocalInvocationID.x] = items[round] + gl_LocalInvocationID.x;
        barrier();
    }
    atomicAdd(head, batch[0]);
}

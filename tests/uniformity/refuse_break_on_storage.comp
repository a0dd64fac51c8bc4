#version 450
// A work loop that stops at a sentinel read from a read-write buffer
// (another workgroup may change it), with a barrier each round: the break
// is non-uniform, and so is every barrier after it in the loop.
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

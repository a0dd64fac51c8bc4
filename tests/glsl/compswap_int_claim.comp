#version 450
// atomicCompSwap (int) to claim slots of a runtime-sized array, probing linearly until a free (-1) slot is won.
layout(local_size_x = 64) in;

layout(set = 0, binding = 0) readonly buffer Keys {
    int keys[];
} keys;

layout(set = 0, binding = 1) buffer Table {
    int slots[];
} table;

const uint TABLE_SIZE = 1024u;

void main() {
    int key = keys.keys[gl_GlobalInvocationID.x];
    uint h = (uint(key) * 2654435761u) % TABLE_SIZE;
    for (uint probe = 0u; probe < TABLE_SIZE; ++probe) {
        uint s = (h + probe) % TABLE_SIZE;
        int prev = atomicCompSwap(table.slots[s], -1, key);
        if (prev == -1 || prev == key) {
            break;
        }
    }
}

#version 450
// A tiled all-pairs pass in the style of GPU n-body samples: each
// workgroup stages a tile of bodies in shared memory whose length is a
// specialization constant (the host picks it with the workgroup size),
// then every invocation accumulates its pull from the tile. Positions and
// masses are integers (fixed point), so every backend agrees bit for bit.
// The array's length is what naga's SPIR-V reader refuses unfolded.
layout(local_size_x = 32) in;
layout(constant_id = 0) const int TILE = 32;
layout(constant_id = 1) const int SOFTEN = 4;

struct Body { ivec4 pos; };  // x, y, z in 1/16 units; w: mass
layout(set = 0, binding = 0) readonly buffer Bodies { Body bodies[]; };
layout(set = 0, binding = 1) buffer Pulls { ivec4 pull[]; };

shared ivec4 tile[TILE];

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint l = gl_LocalInvocationID.x;
    int count = bodies.length();
    ivec4 me = bodies[min(int(i), count - 1)].pos;
    ivec3 acc = ivec3(0);
    for (int base = 0; base < count; base += TILE) {
        // TILE may exceed the workgroup: each invocation stages a stride.
        for (int k = int(l); k < TILE; k += int(gl_WorkGroupSize.x)) {
            tile[k] = base + k < count ? bodies[base + k].pos : ivec4(0);
        }
        barrier();
        for (int j = 0; j < TILE; j++) {
            ivec3 d = tile[j].xyz - me.xyz;
            int r = abs(d.x) + abs(d.y) + abs(d.z) + SOFTEN;
            acc += d * tile[j].w / r;
        }
        barrier();
    }
    if (int(i) < count) pull[i] = ivec4(acc, TILE);
}

// run: --groups 3 --buffer Bodies=i32:320:iota --buffer Pulls=i32:320

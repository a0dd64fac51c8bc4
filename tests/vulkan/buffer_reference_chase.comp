#version 460
// A GPU-driven renderer's indirection: per-draw records reached through
// buffer references in push constants, each naming its own vertex range
// by address, each vertex's class written through a reference, and the
// counters in a plain buffer (64-bit addresses, and their arithmetic, all
// the way).
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 32) in;
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer Positions { uint xy[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer Draw {
    Positions vertices;
    uint first;
    uint count;
};
layout(buffer_reference, std430, buffer_reference_align = 4) writeonly buffer Classes { uint of_vertex[]; };
layout(set = 0, binding = 0) buffer Tally { uint inside; uint outside; uint sum; } tally;
layout(push_constant) uniform Frame {
    uint64_t draws;
    Classes classes;
    uint draw_count;
    uint half_width;
} frame;
void main() {
    uint d = gl_WorkGroupID.x % frame.draw_count;
    // The record's address by hand, as bindless code steps through an array.
    Draw draw = Draw(frame.draws + uint64_t(d) * 16ul);
    uint v = gl_LocalInvocationID.x;
    if (v >= draw.count) {
        return;
    }
    uint packed = draw.vertices.xy[draw.first + v];
    uint x = packed & 0xFFFFu;
    bool left = x < frame.half_width;
    if (left) {
        atomicAdd(tally.inside, 1u);
    } else {
        atomicAdd(tally.outside, 1u);
    }
    atomicAdd(tally.sum, x);
    frame.classes.of_vertex[gl_GlobalInvocationID.x] = left ? 1u : 2u;
}
// no native: wgpu gives buffers no device addresses, so the original cannot run; the translations are compared, and tests/buffer_references.rs checks the pattern against the CPU
// run: --groups 6 --buffer @verts=u32:64:iota --buffer @draws=u64:[@verts,21474836480,@verts,85899345930,@verts,103079215144] --buffer @classes=u32:192
// run: --buffer Tally=u32:3 --push draws=@draws --push classes=@classes --push draw_count=3 --push half_width=30

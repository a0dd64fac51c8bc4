#version 450
// A bitstream packer in the style of wavelet video encoders: one output
// buffer declared three times at one binding, as 32-, 16- and 8-bit words.
// Each invocation writes its packet (a tag word, a symbol as two 16-bit
// halves, a run of bytes) and reserves its length on the header word with
// an atomicAdd through the 32-bit view; it also reads back, byte by byte,
// words the host wrote. WebGPU binds a buffer once where it is written, so
// the WebGPU target serves all three views from that one binding.
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Stream32 { uint words[]; } stream32;
layout(set = 0, binding = 0) buffer Stream16 { uint16_t halves[]; } stream16;
layout(set = 0, binding = 0) buffer Stream8 { uint8_t bytes[]; } stream8;
layout(set = 0, binding = 1) readonly buffer Symbols { uint symbols[]; };
layout(set = 0, binding = 2) buffer Totals { uint packets; uint checksum; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint s = symbols[i];
    // Word 0 is the header; words 1 to 3 are the host's; packets follow.
    uint packet = 4u + 4u * i;
    stream32.words[packet] = 0xC0DE0000u | i;
    stream16.halves[2u * (packet + 1u)] = uint16_t(s);
    stream16.halves[2u * (packet + 1u) + 1u] = uint16_t(s >> 16u);
    uint run = s % 9u;
    for (uint b = 0u; b < 8u; ++b) {
        stream8.bytes[4u * (packet + 2u) + b] = uint8_t(b < run ? (s >> b) + b : 0xFFu);
    }
    uint host = uint(stream8.bytes[4u + i % 12u]) | uint(stream16.halves[2u + i % 6u]) << 8u;
    atomicAdd(stream32.words[0], run);
    atomicAdd(checksum, host * (i + 1u));
    atomicAdd(packets, 1u);
}
// run: --groups 2 --buffer Stream32=u8:1040:iota --buffer Symbols=u8:256:iota --buffer Totals=u32:2

#version 430
// Every scalar and vector type as a loose uniform, written back in order:
// what the host set is what the shader reads.
layout(local_size_x = 1) in;

uniform uint u_u;
uniform int u_i;
uniform float u_f;
uniform bool u_b;
uniform uvec2 u_u2;
uniform ivec3 u_i3;
uniform vec4 u_f4;
uniform bvec2 u_b2;
uniform vec2 u_f2;
uniform uvec4 u_u4;
uniform ivec2 u_i2;
uniform vec3 u_f3;

layout(std430, binding = 0) writeonly buffer Echo { uint echo[]; };

void main() {
    echo[0] = u_u;
    echo[1] = uint(u_i);
    echo[2] = floatBitsToUint(u_f);
    echo[3] = u_b ? 1u : 0u;
    echo[4] = u_u2.x; echo[5] = u_u2.y;
    echo[6] = uint(u_i3.x); echo[7] = uint(u_i3.y); echo[8] = uint(u_i3.z);
    echo[9] = floatBitsToUint(u_f4.x); echo[10] = floatBitsToUint(u_f4.y);
    echo[11] = floatBitsToUint(u_f4.z); echo[12] = floatBitsToUint(u_f4.w);
    echo[13] = u_b2.x ? 1u : 0u; echo[14] = u_b2.y ? 1u : 0u;
    echo[15] = floatBitsToUint(u_f2.x); echo[16] = floatBitsToUint(u_f2.y);
    echo[17] = u_u4.x; echo[18] = u_u4.y; echo[19] = u_u4.z; echo[20] = u_u4.w;
    echo[21] = uint(u_i2.x); echo[22] = uint(u_i2.y);
    echo[23] = floatBitsToUint(u_f3.x); echo[24] = floatBitsToUint(u_f3.y);
    echo[25] = floatBitsToUint(u_f3.z);
}
// run: --groups 1 --buffer Echo=u32:28:fill=3735928559
// run: --uniform u_u=4000000000 --uniform u_i=-7 --uniform u_f=2.5 --uniform u_b=true --uniform u_u2=11,4294967295
// run: --uniform u_i3=-1,0,2147483647 --uniform u_f4=0.125,-3,1e30,-0.5 --uniform u_b2=false,true --uniform u_f2=-0,6.75
// run: --uniform u_u4=1,2,3,4 --uniform u_i2=-2147483648,42 --uniform u_f3=1.5,-2.25,100

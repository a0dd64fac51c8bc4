#version 430
// A loose mat2 and a std140 block of two-row matrices, laid out with 16-byte columns: read from words at that layout.
// run: --groups 1 --uniform rotation=0,1,-1,0 --buffer Frame=f32:[2,0,0,0,0,3,0,0,1,2,0,0,0,1,0,0,4,5,0,0,6,7,8,0] --buffer Out=f32:16:iota
layout(local_size_x = 4) in;
uniform mat2 rotation;
layout(std140, binding = 1) uniform Frame {
    mat2 scale;
    mat3x2 shear;
    vec3 origin;
};
layout(std430, binding = 0) buffer Out { vec4 v[]; };
void main() {
    uint i = gl_LocalInvocationID.x;
    vec2 p = v[i].xy;
    vec2 r = rotation * (scale * p);
    vec2 s = shear * vec3(p, 1.0);
    v[i] = vec4(r + origin.xy, s);
}

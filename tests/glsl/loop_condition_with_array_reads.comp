#version 450
// An insertion sort whose while condition reads the array (a known GL-vs-Vulkan difference: see `atomport diff`).
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer Data { uvec4 v[8]; };
void main() {
    uvec4 frags[8];
    for (uint i = 0u; i < 8u; i++) frags[i] = v[i];
    uint n = 8u;
    for (uint i = 1u; i < n; i++) {
        uvec4 f = frags[i];
        uint j = i;
        while (j > 0u && (frags[j - 1u].y < f.y || (frags[j - 1u].y == f.y && frags[j - 1u].w < f.w))) {
            frags[j] = frags[j - 1u];
            j--;
        }
        frags[j] = f;
    }
    for (uint i = 0u; i < 8u; i++) v[i] = frags[i];
}
// run: --groups 1 --buffer Data=u32:[0,5,0,3,1,2,0,9,2,5,0,1,3,7,0,4,4,2,0,2,5,5,0,3,6,0,0,8,7,7,0,6]
// not on gl: Mesa 22.3's llvmpipe miscompiles this loop condition in OpenGL (see README.md, Known driver bug)

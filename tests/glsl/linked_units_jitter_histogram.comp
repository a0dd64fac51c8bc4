// An OpenGL program of several compute shaders linked together, as a
// renderer attaches one shared sampling unit to each of its kernels
// (glAttachShader twice, then glLinkProgram): this unit declares the
// functions it calls, and link/jitter.glsl defines them, declares the
// same buffer block, and has a loose uniform of its own with an
// initializer. Each pixel stores its jittered value and counts it into a
// histogram; the sampling unit keeps the largest hash it saw.
// dialect: opengl
// link: link/jitter.glsl
// run: --groups 4,3 --image framebuffer=32x24:fill=0.25 --uniform frame=7
// run: --buffer Stats=u32:[5,0,1,2,3,4,5,6,7,8]
#version 430 core

layout(local_size_x = 8, local_size_y = 8) in;

layout(binding = 0, r32f) uniform image2D framebuffer;
uniform uint frame;

layout(std430, binding = 1) buffer Stats {
    uint hits;
    uint peak;
    uint bins[8];
};

vec2 jitter(uvec2 pixel, uint frame);
uint bucket(float v);

void main() {
    uvec2 pixel = gl_GlobalInvocationID.xy;
    vec2 j = jitter(pixel, frame);
    float v = j.x + j.y;
    float before = imageLoad(framebuffer, ivec2(pixel)).r;
    imageStore(framebuffer, ivec2(pixel), vec4(before + v));
    atomicAdd(hits, 1u);
    atomicAdd(bins[bucket(v)], 1u);
}

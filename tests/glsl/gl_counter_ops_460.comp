#version 460
// OpenGL 4.6 atomic counter operations (ARB_shader_atomic_counter_ops is core).
layout(local_size_x = 16) in;

layout(binding = 0, offset = 0) uniform atomic_uint total;
layout(binding = 0) uniform atomic_uint lowest;
layout(binding = 0) uniform atomic_uint highest;
layout(binding = 0) uniform atomic_uint bits;
layout(binding = 0) uniform atomic_uint token;

layout(std430, binding = 1) buffer Returned { uint r[]; };

void main() {
    uint i = gl_LocalInvocationIndex;
    r[8u * i + 0u] = atomicCounterAdd(total, i + 1u);
    r[8u * i + 1u] = atomicCounterSubtract(total, 1u);
    r[8u * i + 2u] = atomicCounterMin(lowest, 100u + i);
    r[8u * i + 3u] = atomicCounterMax(highest, i * 3u);
    r[8u * i + 4u] = atomicCounterOr(bits, 1u << i);
    r[8u * i + 5u] = atomicCounterAnd(bits, ~(1u << (31u - i)));
    r[8u * i + 6u] = atomicCounterXor(bits, 1u << 20u);
    r[8u * i + 7u] = atomicCounterCompSwap(token, 0u, i + 1u);
    atomicCounterExchange(lowest, atomicCounter(lowest));
}
// run: --groups 1 --buffer Returned=u32:128:fill=7
// run: --counter total=1000 --counter lowest=150 --counter highest=20 --counter bits=4042322160
// Exact: the values returned depend on the order the 16 lanes run in; one workgroup runs in
// lane order on lavapipe, natively and translated alike.
// not on webgpu: every counter operation returns a value that depends on the order the invocations ran in, which lavapipe keeps from run to run and SwiftShader does not; tests/opengl.rs checks what is fixed (totals, a single compare-swap winner, bounds) on every backend

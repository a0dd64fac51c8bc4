#version 310 es
// OpenGL ES 3.1 particle update: precision statements, loose uniforms,
// a counter of particles that died this step.
precision highp float;
precision highp int;
layout(local_size_x = 128) in;

uniform float u_dt;
uniform vec3 u_gravity;
uniform float u_floor;

struct Particle {
    vec4 position;  // w: remaining life
    vec4 velocity;
};

layout(std430, binding = 0) buffer Particles { Particle particles[]; };
layout(binding = 0, offset = 0) uniform atomic_uint deaths;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= uint(particles.length())) return;
    Particle p = particles[i];
    if (p.position.w <= 0.0) return;
    p.velocity.xyz += u_gravity * u_dt;
    p.position.xyz += p.velocity.xyz * u_dt;
    if (p.position.y < u_floor) {
        p.position.y = u_floor;
        p.velocity.y = -0.5 * p.velocity.y;
    }
    p.position.w -= u_dt;
    if (p.position.w <= 0.0) {
        atomicCounterIncrement(deaths);
    }
    particles[i] = p;
}

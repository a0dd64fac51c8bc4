struct Particle {
    position: vec4<f32>,
    velocity: vec4<f32>,
}

struct Particles {
    particles: array<Particle>,
}

struct gl_DefaultUniformBlock {
    u_dt: f32,
    u_gravity: vec3<f32>,
    u_floor: f32,
}

struct gl_AtomicCounterBlock_0_ {
    deaths: atomic<u32>,
}

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(0) 
var<storage, read_write> unnamed: Particles;
@group(0) @binding(2) 
var<uniform> unnamed_1: gl_DefaultUniformBlock;
@group(0) @binding(1) 
var<storage, read_write> unnamed_2: gl_AtomicCounterBlock_0_;

fn main_1() {
    var i: u32;
    var p: Particle;

    let _e13 = gl_GlobalInvocationID_1[0u];
    i = _e13;
    let _e14 = i;
    if (_e14 >= bitcast<u32>(bitcast<i32>(arrayLength((&unnamed.particles))))) {
        return;
    }
    let _e20 = i;
    let _e23 = unnamed.particles[_e20];
    p.position = _e23.position;
    p.velocity = _e23.velocity;
    let _e30 = p.position[3u];
    if (_e30 <= 0f) {
        return;
    }
    let _e33 = unnamed_1.u_gravity;
    let _e35 = unnamed_1.u_dt;
    let _e38 = p.velocity;
    let _e40 = (_e38.xyz + (_e33 * _e35));
    p.velocity[0u] = _e40.x;
    p.velocity[1u] = _e40.y;
    p.velocity[2u] = _e40.z;
    let _e51 = p.velocity;
    let _e54 = unnamed_1.u_dt;
    let _e57 = p.position;
    let _e59 = (_e57.xyz + (_e51.xyz * _e54));
    p.position[0u] = _e59.x;
    p.position[1u] = _e59.y;
    p.position[2u] = _e59.z;
    let _e71 = p.position[1u];
    let _e73 = unnamed_1.u_floor;
    if (_e71 < _e73) {
        let _e76 = unnamed_1.u_floor;
        p.position[1u] = _e76;
        let _e81 = p.velocity[1u];
        p.velocity[1u] = (-0.5f * _e81);
    }
    let _e86 = unnamed_1.u_dt;
    let _e89 = p.position[3u];
    p.position[3u] = (_e89 - _e86);
    let _e95 = p.position[3u];
    if (_e95 <= 0f) {
        let _e98 = atomicAdd((&unnamed_2.deaths), 1u);
    }
    let _e99 = i;
    let _e100 = p;
    unnamed.particles[_e99].position = _e100.position;
    unnamed.particles[_e99].velocity = _e100.velocity;
    return;
}

@compute @workgroup_size(128, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}

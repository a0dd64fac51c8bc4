struct Params {
    count: u32,
    dt: f32,
}

struct Particle {
    position: vec4<f32>,
    velocity: vec4<f32>,
}

struct In {
    particles: array<Particle>,
}

struct Out {
    alive_count: atomic<u32>,
    dead_count: atomic<u32>,
    pad0_: u32,
    pad1_: u32,
    particles: array<Particle>,
}

var<private> gl_GlobalInvocationID_1: vec3<u32>;
var<private> gl_LocalInvocationIndex_1: u32;
var<workgroup> s_local_count: atomic<u32>;
@group(0) @binding(0) 
var<uniform> params: Params;
@group(0) @binding(1) 
var<storage> src: In;
var<workgroup> s_base: u32;
@group(0) @binding(2) 
var<storage, read_write> dst: Out;

fn main_1(gl_WorkGroupID_1: vec3<u32>) {
    var i: u32;
    var lid: u32;
    var alive: bool;
    var p: Particle;
    var local_slot: u32;
    var gl_WorkGroupID_2: vec3<u32>;

    gl_WorkGroupID_2 = gl_WorkGroupID_1;
    let _e21 = gl_GlobalInvocationID_1[0u];
    i = _e21;
    let _e22 = gl_LocalInvocationIndex_1;
    lid = _e22;
    let _e23 = lid;
    if (_e23 == 0u) {
        atomicStore((&s_local_count), 0u);
    }
    workgroupBarrier();
    alive = false;
    let _e25 = i;
    let _e27 = params.count;
    if (_e25 < _e27) {
        let _e29 = i;
        let _e32 = src.particles[_e29];
        p.position = _e32.position;
        p.velocity = _e32.velocity;
        let _e38 = params.dt;
        let _e41 = p.velocity[3u];
        p.velocity[3u] = (_e41 - _e38);
        let _e46 = p.velocity;
        let _e49 = params.dt;
        let _e52 = p.position;
        let _e54 = (_e52.xyz + (_e46.xyz * _e49));
        p.position[0u] = _e54.x;
        p.position[1u] = _e54.y;
        p.position[2u] = _e54.z;
        let _e66 = p.velocity[3u];
        alive = (_e66 > 0f);
    }
    local_slot = 0u;
    let _e68 = alive;
    if _e68 {
        let _e69 = atomicAdd((&s_local_count), 1u);
        local_slot = _e69;
    }
    workgroupBarrier();
    let _e70 = lid;
    if (_e70 == 0u) {
        let _e73 = atomicLoad((&s_local_count));
        let _e74 = atomicAdd((&dst.alive_count), _e73);
        s_base = _e74;
        let _e77 = params.count;
        let _e79 = params.count;
        let _e81 = gl_WorkGroupID_2[0u];
        let _e86 = atomicLoad((&s_local_count));
        let _e88 = atomicAdd((&dst.dead_count), (min((_e77 - min(_e79, (_e81 * 128u))), 128u) - _e86));
    }
    workgroupBarrier();
    let _e89 = alive;
    if _e89 {
        let _e90 = s_base;
        let _e91 = local_slot;
        let _e93 = p;
        dst.particles[(_e90 + _e91)].position = _e93.position;
        dst.particles[(_e90 + _e91)].velocity = _e93.velocity;
    }
    return;
}

@compute @workgroup_size(128, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>, @builtin(local_invocation_index) gl_LocalInvocationIndex: u32, @builtin(workgroup_id) gl_WorkGroupID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    gl_LocalInvocationIndex_1 = gl_LocalInvocationIndex;
    main_1(gl_WorkGroupID);
}

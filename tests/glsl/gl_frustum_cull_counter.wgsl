struct gl_DefaultUniformBlock {
    u_viewProj: mat4x4<f32>,
    u_planes: array<vec4<f32>, 6>,
    u_instanceCount: u32,
    u_boundsScale: f32,
}

struct Instance {
    sphere: vec4<f32>,
    meshId: u32,
    pad0_: u32,
    pad1_: u32,
    pad2_: u32,
}

struct Instances {
    instances: array<Instance>,
}

struct VisibleIds {
    visibleIds: array<u32>,
}

struct gl_AtomicCounterBlock_0_ {
    visibleCount: atomic<u32>,
}

@group(0) @binding(3) 
var<uniform> unnamed: gl_DefaultUniformBlock;
var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(0) 
var<storage> unnamed_1: Instances;
@group(0) @binding(2) 
var<storage, read_write> unnamed_2: gl_AtomicCounterBlock_0_;
@group(0) @binding(1) 
var<storage, read_write> unnamed_3: VisibleIds;

fn insideFrustum(s: ptr<function, vec4<f32>>) -> bool {
    var p: i32;

    p = 0i;
    loop {
        let _e9 = p;
        if (_e9 < 6i) {
            let _e11 = p;
            let _e14 = unnamed.u_planes[_e11];
            let _e16 = (*s);
            let _e19 = p;
            let _e23 = unnamed.u_planes[_e19][3u];
            let _e26 = (*s)[3u];
            let _e29 = unnamed.u_boundsScale;
            if ((dot(_e14.xyz, _e16.xyz) + _e23) < (-(_e26) * _e29)) {
                return false;
            }
            continue;
        } else {
            break;
        }
        continuing {
            let _e32 = p;
            p = (_e32 + 1i);
        }
    }
    return true;
}

fn main_1() {
    var id: u32;
    var s_1: vec4<f32>;
    var clip: vec4<f32>;
    var param: vec4<f32>;
    var slot: u32;
    var phi_116_: bool;

    let _e16 = gl_GlobalInvocationID_1[0u];
    id = _e16;
    let _e17 = id;
    let _e19 = unnamed.u_instanceCount;
    if (_e17 >= _e19) {
        return;
    }
    let _e21 = id;
    let _e25 = unnamed_1.instances[_e21].sphere;
    s_1 = _e25;
    let _e27 = unnamed.u_viewProj;
    let _e28 = s_1;
    let _e29 = _e28.xyz;
    clip = (_e27 * vec4<f32>(_e29.x, _e29.y, _e29.z, 1f));
    let _e36 = clip[3u];
    let _e37 = (_e36 > 0f);
    phi_116_ = _e37;
    if _e37 {
        let _e38 = s_1;
        param = _e38;
        let _e39 = insideFrustum((&param));
        phi_116_ = _e39;
    }
    let _e41 = phi_116_;
    if _e41 {
        let _e43 = atomicAdd((&unnamed_2.visibleCount), 1u);
        slot = _e43;
        let _e44 = slot;
        let _e45 = id;
        unnamed_3.visibleIds[_e44] = _e45;
    }
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}

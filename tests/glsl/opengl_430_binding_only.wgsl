struct Particles {
    positions: array<vec4<f32>>,
}

struct Culling {
    visible: atomic<u32>,
    culled: atomic<u32>,
    visible_ids: array<u32>,
}

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(0) 
var<storage> unnamed: Particles;
@group(0) @binding(1) 
var<storage, read_write> culling: Culling;

fn main_1() {
    var i: u32;
    var p: vec4<f32>;
    var slot: u32;
    var phi_49_: bool;

    let _e11 = gl_GlobalInvocationID_1[0u];
    i = _e11;
    let _e12 = i;
    let _e15 = unnamed.positions[_e12];
    p = _e15;
    let _e17 = p[3u];
    let _e18 = (_e17 > 0f);
    phi_49_ = _e18;
    if _e18 {
        let _e19 = p;
        let _e23 = p[3u];
        phi_49_ = all((abs(_e19.xyz) < vec3(_e23)));
    }
    let _e28 = phi_49_;
    if _e28 {
        let _e30 = atomicAdd((&culling.visible), 1u);
        slot = _e30;
        let _e31 = slot;
        let _e32 = i;
        culling.visible_ids[_e31] = _e32;
    } else {
        let _e36 = atomicAdd((&culling.culled), 1u);
    }
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}

struct Slabs {
    filled: array<atomic<u32>>,
}

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(0) 
var occupancy: texture_3d<u32>;
@group(0) @binding(1) 
var<storage, read_write> unnamed: Slabs;

fn main_1() {
    var v: vec3<i32>;

    let _e8 = gl_GlobalInvocationID_1;
    v = bitcast<vec3<i32>>(_e8);
    let _e10 = v;
    let _e11 = textureDimensions(occupancy, 0i);
    if any((_e10 >= vec3<i32>(_e11))) {
        return;
    }
    let _e15 = v;
    let _e16 = textureLoad(occupancy, _e15, 0i);
    if (_e16.x != 0u) {
        let _e20 = v[2u];
        let _e23 = atomicAdd((&unnamed.filled[_e20]), 1u);
    }
    return;
}

@compute @workgroup_size(4, 4, 4) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}

struct Pairs {
    pairs: array<array<atomic<u32>, 2>, 8>,
    quads: array<array<atomic<i32>, 4>>,
}

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(0) 
var<storage, read_write> b: Pairs;

fn main_1() {
    var id: u32;
    var i: u32;
    var p: vec2<u32>;

    let _e17 = gl_GlobalInvocationID_1[0u];
    id = _e17;
    let _e18 = id;
    i = (_e18 % 8u);
    let _e20 = id;
    if (_e20 < 8u) {
        let _e22 = id;
        atomicStore((&b.pairs[_e22][0u]), vec2<u32>(0u, 4294967295u).x);
        atomicStore((&b.pairs[_e22][1u]), vec2<u32>(0u, 4294967295u).y);
    }
    storageBarrier();
    workgroupBarrier();
    let _e29 = i;
    let _e33 = atomicAdd((&b.pairs[_e29][0u]), 1u);
    let _e34 = i;
    let _e38 = id;
    let _e39 = atomicMin((&b.pairs[_e34][1u]), _e38);
    let _e40 = i;
    let _e44 = atomicAdd((&b.quads[_e40][3u]), -1i);
    storageBarrier();
    workgroupBarrier();
    let _e45 = id;
    if (_e45 < 8u) {
        let _e47 = id;
        let _e51 = atomicLoad((&b.pairs[_e47][0u]));
        let _e53 = atomicLoad((&b.pairs[_e47][1u]));
        p = vec2<u32>(_e51, _e53);
        let _e55 = id;
        let _e58 = p[0u];
        let _e61 = p[1u];
        let _e63 = vec4<i32>(bitcast<i32>(_e58), bitcast<i32>(_e61), 0i, 0i);
        atomicStore((&b.quads[(_e55 + 8u)][0u]), _e63.x);
        atomicStore((&b.quads[(_e55 + 8u)][1u]), _e63.y);
        atomicStore((&b.quads[(_e55 + 8u)][2u]), _e63.z);
        atomicStore((&b.quads[(_e55 + 8u)][3u]), _e63.w);
    }
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}

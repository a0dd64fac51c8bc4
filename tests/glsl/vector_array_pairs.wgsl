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

    let _e14 = gl_GlobalInvocationID_1[0u];
    id = _e14;
    let _e15 = id;
    i = (_e15 % 8u);
    let _e17 = id;
    if (_e17 < 8u) {
        let _e19 = id;
        atomicStore((&b.pairs[_e19][0u]), vec2<u32>(0u, 4294967295u).x);
        atomicStore((&b.pairs[_e19][1u]), vec2<u32>(0u, 4294967295u).y);
    }
    storageBarrier();
    workgroupBarrier();
    let _e26 = i;
    let _e30 = atomicAdd((&b.pairs[_e26][0u]), 1u);
    let _e31 = i;
    let _e35 = id;
    let _e36 = atomicMin((&b.pairs[_e31][1u]), _e35);
    let _e37 = i;
    let _e41 = atomicAdd((&b.quads[_e37][3u]), -1i);
    storageBarrier();
    workgroupBarrier();
    let _e42 = id;
    if (_e42 < 8u) {
        let _e44 = id;
        let _e48 = atomicLoad((&b.pairs[_e44][0u]));
        let _e50 = atomicLoad((&b.pairs[_e44][1u]));
        p = vec2<u32>(_e48, _e50);
        let _e52 = id;
        let _e55 = p[0u];
        let _e58 = p[1u];
        let _e60 = vec4<i32>(bitcast<i32>(_e55), bitcast<i32>(_e58), 0i, 0i);
        atomicStore((&b.quads[(_e52 + 8u)][0u]), _e60.x);
        atomicStore((&b.quads[(_e52 + 8u)][1u]), _e60.y);
        atomicStore((&b.quads[(_e52 + 8u)][2u]), _e60.z);
        atomicStore((&b.quads[(_e52 + 8u)][3u]), _e60.w);
    }
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}

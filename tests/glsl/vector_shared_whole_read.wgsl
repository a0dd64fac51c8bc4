struct Stats {
    v: array<atomic<u32>, 4>,
    snap: vec4<u32>,
}

var<private> gl_LocalInvocationIndex_1: u32;
var<workgroup> sv: array<atomic<u32>, 4>;
@group(0) @binding(0) 
var<storage, read_write> b: Stats;

fn main_1() {
    let _e10 = gl_LocalInvocationIndex_1;
    if (_e10 == 0u) {
        atomicStore((&sv[0u]), vec4<u32>(0u, 0u, 0u, 0u).x);
        atomicStore((&sv[1u]), vec4<u32>(0u, 0u, 0u, 0u).y);
        atomicStore((&sv[2u]), vec4<u32>(0u, 0u, 0u, 0u).z);
        atomicStore((&sv[3u]), vec4<u32>(0u, 0u, 0u, 0u).w);
    }
    workgroupBarrier();
    let _e21 = atomicAdd((&sv[1u]), 1u);
    let _e24 = atomicAdd((&b.v[0u]), 1u);
    workgroupBarrier();
    let _e25 = gl_LocalInvocationIndex_1;
    if (_e25 == 0u) {
        let _e28 = atomicLoad((&sv[0u]));
        let _e30 = atomicLoad((&sv[1u]));
        let _e32 = atomicLoad((&sv[2u]));
        let _e34 = atomicLoad((&sv[3u]));
        b.snap = vec4<u32>(_e28, _e30, _e32, _e34);
        atomicStore((&b.v[2u]), vec2<u32>(1u, 2u).x);
        atomicStore((&b.v[3u]), vec2<u32>(1u, 2u).y);
        let _e45 = atomicLoad((&b.v[0u]));
        let _e47 = atomicLoad((&b.v[1u]));
        let _e49 = atomicLoad((&b.v[2u]));
        let _e51 = atomicLoad((&b.v[3u]));
        let _e53 = (vec4<u32>(_e45, _e47, _e49, _e51) + vec4<u32>(1u, 1u, 1u, 1u));
        atomicStore((&b.v[0u]), _e53.x);
        atomicStore((&b.v[1u]), _e53.y);
        atomicStore((&b.v[2u]), _e53.z);
        atomicStore((&b.v[3u]), _e53.w);
    }
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(local_invocation_index) gl_LocalInvocationIndex: u32) {
    gl_LocalInvocationIndex_1 = gl_LocalInvocationIndex;
    main_1();
}

struct Stats {
    v: array<atomic<u32>, 4>,
    snapshot: vec4<u32>,
}

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(0) 
var<storage, read_write> b: Stats;

fn main_1() {
    var id: u32;
    var t: vec4<u32>;

    let _e11 = gl_GlobalInvocationID_1[0u];
    id = _e11;
    let _e12 = id;
    if (_e12 == 0u) {
        atomicStore((&b.v[0u]), vec4<u32>(0u, 0u, 0u, 0u).x);
        atomicStore((&b.v[1u]), vec4<u32>(0u, 0u, 0u, 0u).y);
        atomicStore((&b.v[2u]), vec4<u32>(0u, 0u, 0u, 0u).z);
        atomicStore((&b.v[3u]), vec4<u32>(0u, 0u, 0u, 0u).w);
    }
    storageBarrier();
    workgroupBarrier();
    let _e25 = atomicAdd((&b.v[0u]), 1u);
    let _e28 = id;
    let _e29 = atomicAdd((&b.v[1u]), _e28);
    let _e32 = id;
    let _e33 = atomicMax((&b.v[2u]), _e32);
    let _e36 = id;
    let _e40 = atomicOr((&b.v[3u]), (1u << bitcast<u32>((_e36 % 32u))));
    storageBarrier();
    workgroupBarrier();
    let _e41 = id;
    if (_e41 == 0u) {
        let _e45 = atomicLoad((&b.v[0u]));
        let _e47 = atomicLoad((&b.v[1u]));
        let _e49 = atomicLoad((&b.v[2u]));
        let _e51 = atomicLoad((&b.v[3u]));
        t = vec4<u32>(_e45, _e47, _e49, _e51);
        let _e53 = t;
        b.snapshot = (_e53 + vec4<u32>(0u, 0u, 0u, 0u));
    }
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}

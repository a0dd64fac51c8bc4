struct Ids {
    ids: array<vec4<u32>>,
}

struct Rows {
    per_row: array<atomic<u32>, 64>,
    total: atomic<u32>,
}

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(0) 
var<storage, read_write> unnamed: Ids;
var<private> gl_LocalInvocationID_1: vec3<u32>;
var<private> gl_LocalInvocationIndex_1: u32;
@group(0) @binding(1) 
var<storage, read_write> unnamed_1: Rows;

fn main_1(gl_NumWorkGroups_1: vec3<u32>, gl_WorkGroupID_1: vec3<u32>) {
    var size: vec2<u32>;
    var g: vec3<u32>;
    var at: u32;
    var gl_NumWorkGroups_2: vec3<u32>;
    var gl_WorkGroupID_2: vec3<u32>;

    gl_WorkGroupID_2 = gl_WorkGroupID_1;
    gl_NumWorkGroups_2 = gl_NumWorkGroups_1;
    let _e17 = gl_NumWorkGroups_2;
    size = (_e17.xy * vec2<u32>(32u, 32u));
    let _e20 = gl_GlobalInvocationID_1;
    g = _e20;
    let _e22 = g[1u];
    let _e24 = size[0u];
    let _e27 = g[0u];
    at = ((_e22 * _e24) + _e27);
    let _e29 = at;
    let _e31 = gl_WorkGroupID_2[0u];
    let _e34 = gl_WorkGroupID_2[1u];
    let _e37 = gl_LocalInvocationID_1[0u];
    let _e40 = gl_LocalInvocationID_1[1u];
    let _e42 = gl_LocalInvocationIndex_1;
    let _e44 = gl_NumWorkGroups_2[0u];
    let _e47 = gl_NumWorkGroups_2[1u];
    unnamed.ids[_e29] = vec4<u32>(((_e31 * 1000u) + _e34), ((_e37 * 100u) + _e40), _e42, ((_e44 * 10u) + _e47));
    let _e53 = g[1u];
    let _e57 = gl_LocalInvocationIndex_1;
    let _e59 = atomicAdd((&unnamed_1.per_row[(_e53 % 64u)]), (_e57 + 1u));
    let _e61 = at;
    let _e62 = atomicMax((&unnamed_1.total), _e61);
    return;
}

@compute @workgroup_size(32, 32, 1) 
fn main(@builtin(num_workgroups) gl_NumWorkGroups: vec3<u32>, @builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>, @builtin(workgroup_id) gl_WorkGroupID: vec3<u32>, @builtin(local_invocation_id) gl_LocalInvocationID: vec3<u32>, @builtin(local_invocation_index) gl_LocalInvocationIndex: u32) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    gl_LocalInvocationID_1 = gl_LocalInvocationID;
    gl_LocalInvocationIndex_1 = gl_LocalInvocationIndex;
    main_1(gl_NumWorkGroups, gl_WorkGroupID);
}

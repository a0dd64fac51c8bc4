//! Buffers laid out where WGSL's rules cannot place their members, read
//! and written as words at the shader's own layout: scalar layout's `vec3`
//! arrays of stride 12 and a struct of a `vec3`, a `float` and a `vec2`
//! packed into 24 bytes. Checked against a CPU model on every backend and,
//! on Vulkan, beside the original SPIR-V run natively. (std140's `mat2`
//! is the golden kernel `tests/glsl/std140_mat2.comp`.)

mod common;

use atomport::{Kernel, SourceOptions};

const SKIN: &str = "#version 450
#extension GL_EXT_scalar_block_layout : require
layout(local_size_x = 32) in;
struct Vertex {
    vec3 position;
    float weight;
    vec2 uv;
};
layout(scalar, binding = 0) readonly buffer Positions { vec3 positions[]; };
layout(scalar, binding = 1) buffer Vertices { float scale; Vertex vertices[]; };
layout(scalar, binding = 2) buffer Bounds { uint hits; vec3 lowest; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    vec3 p = positions[i];
    vertices[i].position = p * scale + vec3(vertices[i].uv, 0.0);
    vertices[i].weight += 1.0;
    if (p.x < 8.0) {
        atomicAdd(hits, 1u);
    }
    if (i == 0u) {
        lowest = p;
    }
}
";

#[test]
fn scalar_layout_vec3_arrays_and_packed_structs() {
    let k = Kernel::from_glsl(SKIN, &SourceOptions::named("skin.comp")).unwrap();
    let n = 64usize;
    let positions: Vec<f32> = (0..n * 3).map(|k| k as f32 * 0.5).collect();
    // Vertices: scale at 0, vertex i at 4 + 24 i: position, weight, uv.
    let scale = 3.0f32;
    let mut vertices = vec![scale];
    for i in 0..n {
        vertices.extend([0.0, 0.0, 0.0, i as f32, i as f32 + 0.25, -(i as f32)]);
    }
    let mut want = vertices.clone();
    for i in 0..n {
        let p = &positions[i * 3..i * 3 + 3];
        let v = &mut want[1 + i * 6..1 + i * 6 + 6];
        let uv = [v[4], v[5]];
        v[0] = p[0] * scale + uv[0];
        v[1] = p[1] * scale + uv[1];
        v[2] = p[2] * scale;
        v[3] += 1.0;
    }
    let hits = (0..n).filter(|i| positions[i * 3] < 8.0).count() as u32;
    let bytes = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let inputs = [
        ("Positions", bytes(&positions)),
        ("Vertices", bytes(&vertices)),
        ("Bounds", vec![0; 16]),
    ];
    let groups = [(n / 32) as u32, 1, 1];
    for ctx in common::contexts_with_available(wgpu::Features::PASSTHROUGH_SHADERS) {
        for (backend, out) in common::translated_and_native(&ctx, &k, groups, &inputs) {
            let floats = |b: &[u8]| -> Vec<f32> {
                b.chunks_exact(4)
                    .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
                    .collect()
            };
            assert_eq!(floats(&out[1]), want, "{backend}: vertices");
            let bounds = &out[2];
            assert_eq!(
                u32::from_le_bytes(bounds[0..4].try_into().unwrap()),
                hits,
                "{backend}"
            );
            assert_eq!(
                floats(&bounds[4..16]),
                positions[0..3].to_vec(),
                "{backend}: lowest"
            );
        }
    }
    // The binding map keeps the declared members at their offsets.
    let v = k.binding_named("Vertices").unwrap();
    let members: Vec<(&str, &str, u32)> = v
        .members
        .iter()
        .map(|m| (m.name.as_str(), m.ty.as_str(), m.offset))
        .collect();
    assert_eq!(
        members,
        [("scale", "float", 0), ("vertices", "struct[]", 4)]
    );
}

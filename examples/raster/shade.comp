#version 450
// Shades every pixel from the visibility buffer: the triangle's normal and
// colour, a key light, a rim light and a specular highlight; the background
// is a vertical gradient.
layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2D vis;
// Per triangle: (normal.xyz, hue).
layout(set = 0, binding = 1) readonly buffer Shading { vec4 shading[]; };
layout(set = 0, binding = 2) writeonly buffer Colors { uint colors[]; };
layout(set = 0, binding = 3) uniform Params { uint count; uint width; uint height; uint max_box; };

vec3 hue_rgb(float h) {
    vec3 k = clamp(abs(fract(h + vec3(0.0, 2.0 / 3.0, 1.0 / 3.0)) * 6.0 - 3.0) - 1.0, 0.0, 1.0);
    return mix(vec3(1.0), k, 0.75);
}

void main() {
    uvec2 p = gl_GlobalInvocationID.xy;
    if (p.x >= width || p.y >= height) return;
    uint key = imageLoad(vis, ivec2(p)).x;
    vec3 c;
    if (key == 0xFFFFFFFFu) {
        float v = float(p.y) / float(height);
        c = mix(vec3(0.035, 0.04, 0.06), vec3(0.005, 0.005, 0.01), v);
    } else {
        vec4 s = shading[key & 0xFFFFu];
        vec3 n = normalize(s.xyz);
        vec3 light = normalize(vec3(-0.4, 0.6, 0.7));
        vec3 view = vec3(0.0, 0.0, 1.0);
        float diffuse = max(dot(n, light), 0.0);
        float spec = pow(max(dot(reflect(-light, n), view), 0.0), 32.0);
        float rim = pow(1.0 - max(dot(n, view), 0.0), 3.0);
        vec3 base = hue_rgb(s.w);
        c = base * (0.12 + 0.85 * diffuse) + vec3(0.55) * spec + vec3(0.25, 0.35, 0.6) * rim;
    }
    uvec3 rgb = uvec3(clamp(pow(c, vec3(1.0 / 2.2)), 0.0, 1.0) * 255.0 + 0.5);
    colors[p.y * width + p.x] = rgb.r | (rgb.g << 8) | (rgb.b << 16) | (255u << 24);
}
// run: --groups 3,2 --image vis=48x32:fill=80871427 --buffer Colors=u32:960
// run: --uniform count=6 --uniform width=40 --uniform height=24 --uniform max_box=40
// run: --buffer Shading=f32:[0.3,0.5,0.8,0.1,-0.6,0.2,0.77,0.9,0.1,-0.9,0.4,1.7,0.45,0.62,0.64,2.4,0,0,1,0.5,-0.2,-0.3,0.93,2.9]
// (The visibility image can only be filled: every pixel holds triangle 3's key, 1234 << 16 | 3.)

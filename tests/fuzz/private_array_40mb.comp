#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer B { uint v[]; };
uint arr[10000000];
void main() { arr[v[1]] = 3u; v[0] = arr[v[2]]; }

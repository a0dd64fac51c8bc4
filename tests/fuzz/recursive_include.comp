#version 450
#include "include/rec_a.glsl"
layout(local_size_x=1) in;
void main(){}

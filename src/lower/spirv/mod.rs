//! SPIR-V passes: rewrites of the module, on the one [`model`](crate::lower::model)
//! of it, before naga's reader sees it — what naga cannot read, what core
//! WGSL cannot express, and the caller's choices (specialization values,
//! OpenGL bindings). [`crate::lower`] runs them in its fixed order.

pub mod alias;
pub mod amd;
pub mod arb_subgroup;
pub mod array_switch;
pub mod arrays;
pub mod buffer_textures;
pub mod builtins;
pub mod clustered;
pub mod compat;
pub mod dense;
pub mod fall_through;
pub mod float;
pub mod formatless;
pub mod halfs;
pub mod image;
pub mod integer_sampling;
pub mod misread;
pub mod narrow;
pub mod native_shapes;
pub mod non_finite;
pub mod one_lane;
pub mod opengl;
pub mod printf;
pub mod push;
pub mod refuse;
pub mod resource_args;
pub mod sampler;
pub mod spec;
pub mod subgroup;
pub mod subgroup_bool;
pub mod vector;
pub mod wide_ints;

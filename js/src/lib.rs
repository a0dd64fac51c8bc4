//! The wasm of atomport's JavaScript package (`target/web/npm`, made by
//! `scripts/build-web`): one call, a shader in GLSL, SPIR-V or WGSL with
//! the options of [`atomport::SourceOptions`] as JSON, to its translation as
//! JSON. `package/index.js` wraps it in the package's API.
#![cfg(target_arch = "wasm32")]

use std::path::PathBuf;

use atomport::{Dialect, GlslVersion, Lang, Platform, SourceOptions};
use serde::Deserialize;
use wasm_bindgen::prelude::*;

/// The options as JavaScript passes them (`index.d.ts`: `Options`).
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
struct Options {
    name: Option<String>,
    /// `"native"` (the default) or `"webgpu"`.
    target: Option<String>,
    /// `"vulkan"` or `"opengl"`; detected when absent.
    dialect: Option<String>,
    /// The GLSL version of a shader without a `#version` line (`"460"`,
    /// `"310es"`), as `--glsl-version` takes it.
    glsl_version: Option<String>,
    entry: Option<String>,
    /// `NAME` or `NAME=VALUE`, as `-D` takes them.
    defines: Vec<String>,
    include_dirs: Vec<PathBuf>,
    /// The files `#include` may read, by path, with their text.
    files: std::collections::BTreeMap<PathBuf, String>,
    /// Further compute shaders linked with the shader into one program
    /// (OpenGL's several shaders attached), by path, each's text in `files`.
    link: Vec<PathBuf>,
    /// Read the shader's own `// defines:`, `// dialect:` and `// run:`
    /// lines (their `--spec` and `--target-env`) too, as `atomport run`
    /// does: the playground translates what it runs.
    annotations: bool,
}

impl Options {
    fn source_options(self) -> Result<SourceOptions, String> {
        let mut o = SourceOptions::named(self.name.as_deref().unwrap_or(""));
        o.target = match self.target.as_deref() {
            None | Some("native") => Platform::Native,
            Some("webgpu") => Platform::WebGpu,
            Some(t) => return Err(format!("target: `{t}` is neither `native` nor `webgpu`")),
        };
        o.dialect = match self.dialect.as_deref() {
            None => None,
            Some("vulkan") => Some(Dialect::Vulkan),
            Some("opengl") => Some(Dialect::OpenGl),
            Some(d) => return Err(format!("dialect: `{d}` is neither `vulkan` nor `opengl`")),
        };
        o.glsl_version = match self.glsl_version.as_deref() {
            None => None,
            Some(v) => Some(GlslVersion::parse(v).map_err(|e| format!("glslVersion: {e}"))?),
        };
        o = self
            .defines
            .iter()
            .fold(o.with_entry(self.entry), |o, d| o.define(d));
        o.include_dirs = self.include_dirs;
        o.files = self.files.into_iter().collect();
        o.linked = self.link;
        Ok(o)
    }
}

/// Translates `source` (`lang`: `glsl`, `spirv` or `wgsl`) with `options`
/// (JSON); returns the translation as JSON, or throws a JSON object
/// `{"message", "kind", "file", "line", "column"}`.
#[wasm_bindgen]
pub fn translate(source: &[u8], lang: &str, options: &str) -> Result<String, JsValue> {
    let fail = |kind: &str, message: String, at: Option<&atomport::ShaderError>| {
        let json = serde_json::json!({
            "message": message,
            "kind": kind,
            "file": at.and_then(|e| e.file.clone()),
            "line": at.and_then(|e| e.line),
            "column": at.and_then(|e| e.column),
        });
        JsValue::from_str(&json.to_string())
    };
    let lang = match lang {
        "glsl" => Lang::Glsl,
        "spirv" => Lang::Spirv,
        "wgsl" => Lang::Wgsl,
        l => {
            return Err(fail(
                "usage",
                format!("lang: `{l}` is none of glsl, spirv, wgsl"),
                None,
            ));
        }
    };
    let options: Options =
        serde_json::from_str(options).map_err(|e| fail("usage", format!("options: {e}"), None))?;
    let annotations = options.annotations;
    let mut opts = options
        .source_options()
        .map_err(|e| fail("usage", e, None))?;
    if annotations && lang == Lang::Glsl {
        let text = String::from_utf8_lossy(source);
        opts = atomport::Annotations::parse(&text)
            .map_err(atomport::Error::Spec)
            .and_then(|a| a.apply(opts))
            .map_err(|e| fail("usage", format!("the shader's annotations: {e}"), None))?;
    }
    match atomport::translate(source, lang, &opts) {
        Ok(t) => Ok(t.to_json()),
        Err(atomport::Error::Shader(e)) => Err(fail("shader", e.message.clone(), Some(&e))),
        Err(e) => Err(fail("translation", e.to_string(), None)),
    }
}

//! How a shader says it is run, in its own comments (`//`, or `;` in a
//! `.spvasm`): the job, the order-independent comparisons, where it cannot
//! run. atomport's golden and demo kernels carry these, and every runner
//! of them (the native comparison, the browser suite) reads them here, as
//! the JavaScript package does for the playground, which has no runtime.

/// A shader's run annotations.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Annotations {
    /// `// run: ARGS…`: the job's flags (`Resources::from_flags` of `runtime::job`),
    /// several lines joined.
    pub job: Vec<String>,
    /// The flags among `// run:`'s that say how to read the shader:
    /// `--spec ID=VALUE` and `--target-env ENV` ([`Annotations::apply`]).
    pub shader: Vec<String>,
    /// `// compare: NAME=RULE: why`: a binding whose values depend on the
    /// order invocations ran in, its rule (`NAME=RULE`) and the reason.
    pub rules: Vec<(String, String)>,
    /// `// no native: why`: the original cannot run through wgpu.
    pub no_native: Option<String>,
    /// `// not on BACKEND: why`: a known driver bug on that backend.
    pub not_on: Vec<(String, String)>,
    /// `// defines: NAME=VALUE …`: the `-D`s it is compiled with.
    pub defines: Vec<String>,
    /// `// dialect: vulkan|opengl`.
    pub dialect: Option<String>,
    /// `// link: FILE …`: further compute shaders linked with this one into
    /// one program (OpenGL's, several shaders attached), each by its path
    /// from this shader's folder, as `#include "FILE"` would name it.
    pub linked: Vec<String>,
}

impl Annotations {
    /// Reads the annotations of `text`; a `compare:` line without its
    /// reason (after `: `) is refused, naming the line.
    pub fn parse(text: &str) -> Result<Annotations, String> {
        let mut a = Annotations::default();
        for line in text.lines() {
            let line = line.trim();
            let Some(comment) = line.strip_prefix("//").or_else(|| line.strip_prefix(';')) else {
                continue;
            };
            let comment = comment.trim();
            if let Some(args) = comment.strip_prefix("run:") {
                let mut words = args.split_whitespace();
                while let Some(w) = words.next() {
                    if matches!(w, "--spec" | "--target-env") {
                        a.shader.push(w.to_string());
                        a.shader.extend(words.next().map(String::from));
                    } else {
                        a.job.push(w.to_string());
                    }
                }
            } else if let Some(rule) = comment.strip_prefix("compare:") {
                let (rule, why) = rule
                    .split_once(": ")
                    .ok_or_else(|| format!("`{line}`: a compare line says why after `: `"))?;
                a.rules
                    .push((rule.trim().to_string(), why.trim().to_string()));
            } else if let Some(why) = comment.strip_prefix("no native:") {
                a.no_native = Some(why.trim().to_string());
            } else if let Some((backend, why)) = comment
                .strip_prefix("not on ")
                .and_then(|r| r.split_once(": "))
            {
                a.not_on
                    .push((backend.trim().to_string(), why.trim().to_string()));
            } else if let Some(defs) = comment.strip_prefix("defines:") {
                a.defines.extend(defs.split_whitespace().map(String::from));
            } else if let Some(d) = comment.strip_prefix("dialect:") {
                a.dialect = Some(d.trim().to_string());
            } else if let Some(files) = comment.strip_prefix("link:") {
                a.linked.extend(files.split_whitespace().map(String::from));
            }
        }
        Ok(a)
    }

    /// The `// link:` units of the shader at `shader`, found from its
    /// folder.
    pub fn linked_from(&self, shader: &std::path::Path) -> Vec<std::path::PathBuf> {
        let folder = shader.parent().unwrap_or(std::path::Path::new(""));
        self.linked.iter().map(|file| folder.join(file)).collect()
    }

    /// The shader options the annotations set on `opts`: defines, dialect,
    /// linked units (found from the folder of the shader `opts` names),
    /// specialization values and the target environment; a value that does
    /// not parse is refused, naming it.
    pub fn apply(&self, mut opts: crate::SourceOptions) -> crate::Result<crate::SourceOptions> {
        for d in &self.defines {
            opts = opts.define(d);
        }
        let linked = self.linked_from(std::path::Path::new(&opts.name));
        opts.linked.extend(linked);
        if let Some(d) = &self.dialect {
            opts.dialect = Some(crate::Dialect::parse(d).ok_or_else(|| {
                crate::Error::Spec(format!("// dialect: {d}: not vulkan or opengl"))
            })?);
        }
        for pair in self.shader.chunks(2) {
            let value = pair.get(1).map_or("", String::as_str);
            match pair[0].as_str() {
                "--spec" => opts
                    .specializations
                    .push(crate::Specialization::parse(value)?),
                _ => {
                    opts.target_env = Some(crate::TargetEnv::parse(value).ok_or_else(|| {
                        crate::Error::Spec(format!(
                            "--target-env {value}: not a target environment"
                        ))
                    })?);
                }
            }
        }
        Ok(opts)
    }
}

#[cfg(test)]
mod tests {
    use super::Annotations;

    #[test]
    fn every_annotation_is_read() {
        let a = Annotations::parse(
            "// run: --groups 4 --buffer a=u32:iota:8 --spec 0=3\n#version 450\n// run: --uniform n=3\n\
             // compare: a=multiset: appended in any order\n// defines: K=2 L\n// dialect: opengl\n\
             // link: link/a.glsl b.glsl\n\
             // not on gl: a driver bug\n// no native: a cube image\n",
        )
        .unwrap();
        assert_eq!(
            a.job,
            [
                "--groups",
                "4",
                "--buffer",
                "a=u32:iota:8",
                "--uniform",
                "n=3"
            ]
        );
        assert_eq!(
            a.rules,
            [(
                "a=multiset".to_string(),
                "appended in any order".to_string()
            )]
        );
        assert_eq!(a.defines, ["K=2", "L"]);
        assert_eq!(a.dialect.as_deref(), Some("opengl"));
        assert_eq!(a.linked, ["link/a.glsl", "b.glsl"]);
        let opts = a
            .apply(crate::SourceOptions::named("shaders/k.comp"))
            .unwrap();
        assert_eq!(
            opts.linked,
            [
                std::path::Path::new("shaders/link/a.glsl"),
                std::path::Path::new("shaders/b.glsl")
            ]
        );
        assert_eq!(a.not_on, [("gl".to_string(), "a driver bug".to_string())]);
        assert_eq!(a.no_native.as_deref(), Some("a cube image"));
        assert!(Annotations::parse("// compare: a=multiset").is_err());
    }

    #[test]
    fn shader_options_that_do_not_parse_are_refused_naming_them() {
        let apply = |text: &str| {
            Annotations::parse(text)
                .unwrap()
                .apply(crate::SourceOptions::named("k.comp"))
                .map(|_| ())
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            apply("// dialect: metal"),
            "// dialect: metal: not vulkan or opengl"
        );
        assert!(apply("// run: --target-env vulkan9").starts_with("--target-env vulkan9:"));
        assert!(!apply("// run: --spec nothing").is_empty());
        let ok =
            Annotations::parse("// run: --spec 0=3 --target-env vulkan1.2\n// dialect: opengl")
                .unwrap()
                .apply(crate::SourceOptions::named("k.comp"))
                .unwrap();
        assert_eq!(ok.specializations.len(), 1);
        assert_eq!(ok.dialect, Some(crate::Dialect::OpenGl));
        assert!(ok.target_env.is_some());
    }
}

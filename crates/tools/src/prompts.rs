//! The prompts: ready-made instructions for common jobs, each naming the tools it expects
//! the model to use, offered only to callers who can see every one of those tools.

use std::fmt::Write as _;

use governance::{App, Caller};

/// One prompt argument.
#[derive(Debug)]
pub struct PromptArg {
    pub name: &'static str,
    pub description: &'static str,
    pub required: bool,
}

/// One prompt, declared once.
#[derive(Debug)]
pub struct PromptSpec {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub arguments: &'static [PromptArg],
    /// The tools the instructions tell the model to use; all must be visible to the caller.
    pub tools: &'static [&'static str],
    /// Only for admins (the prompt is about other people).
    pub admin_only: bool,
    /// The instructions; `{name}` is replaced by the argument's value (or a note it is unset).
    pub template: &'static str,
}

const fn arg(name: &'static str, description: &'static str, required: bool) -> PromptArg {
    PromptArg {
        name,
        description,
        required,
    }
}

/// Every prompt, in the order `prompts/list` shows them.
pub const PROMPTS: &[PromptSpec] = &[
    PromptSpec {
        name: "request-media",
        title: "Request a film or show",
        description: "Find the title a person means, confirm it with them, and request it.",
        arguments: &[
            arg("title", "What the person asked for, in their words", true),
            arg("media_type", "movie or tv, when known", false),
        ],
        tools: &[
            "search_titles",
            "get_title_details",
            "get_request_options",
            "request_media",
            "check_request_status",
        ],
        admin_only: false,
        template: "Help me request \"{title}\" (type: {media_type}).\n\
1. Call search_titles with that query. If several titles match, show me the candidates (title, year, rating) and let me choose; never guess.\n\
2. Call get_title_details on my choice and tell me in one line what it is.\n\
3. Call get_request_options to see what may be requested (for a show: which seasons), ask me if there is a choice, then call request_media.\n\
4. Finish with check_request_status and tell me what happens next and what quota is left.",
    },
    PromptSpec {
        name: "download-triage",
        title: "Triage the downloads",
        description: "Find stalled, erroring and slow torrents on a download instance and say what to do.",
        arguments: &[
            arg("instance", "Download instance id; all when unset", false),
            arg(
                "category",
                "Only torrents of this category; all when unset",
                false,
            ),
            arg("tag", "Only torrents with this tag; all when unset", false),
        ],
        tools: &[
            "downloads_overview",
            "find_torrents",
            "tracker_errors",
            "torrent_detail",
        ],
        admin_only: false,
        template: "Triage the downloads on instance {instance} (category: {category}; tag: {tag}).\n\
1. Call downloads_overview for the big picture (states, speeds, free space).\n\
2. Call tracker_errors and find_torrents (stalled, errored, slowest first) to find the torrents in trouble.\n\
3. For the worst few, call torrent_detail and explain the likely cause.\n\
4. Propose actions (reannounce, recheck, pause, delete) as a list for me to approve; do not act on your own.",
    },
    PromptSpec {
        name: "library-health",
        title: "Check the library's health",
        description: "Check that every backend answers and summarise what changed recently.",
        arguments: &[],
        tools: &["diagnose", "list_instances", "get_activity"],
        admin_only: false,
        template: "Check the health of the media library.\n\
1. Call list_instances, then diagnose, and report every backend that is unreachable, refuses its key or is slow, with the fix diagnose suggests.\n\
2. Call get_activity and summarise the last day's changes and any failed or outcome_unknown entries.\n\
3. End with a short list of what needs attention, most urgent first.",
    },
    PromptSpec {
        name: "kids-setup",
        title: "Set up a child's access",
        description: "Explain and check the content limits of a child's grant.",
        arguments: &[
            arg("person", "The child's name in Marquee", true),
            arg(
                "max_rating",
                "Highest film certification allowed, for example PG",
                false,
            ),
            arg(
                "max_tv_rating",
                "Highest TV rating allowed, for example TV-Y7",
                false,
            ),
            arg(
                "blocked_genre",
                "A genre to hide, for example Horror",
                false,
            ),
        ],
        tools: &["whoami", "get_guide", "search_titles"],
        admin_only: true,
        template: "Help me set up safe access for {person} (highest certification: {max_rating}; highest TV rating: {max_tv_rating}; hidden genre: {blocked_genre}).\n\
1. Call get_guide with topic permissions and explain the kid role, the requester grant and content limits in plain words.\n\
2. Give me the exact commands to run: marquee people add {person} --role kid, marquee people set-limits {person} --max-movie {max_rating} --max-tv {max_tv_rating} --block-genre {blocked_genre} --region <my region>, and marquee keys create --person {person}.\n\
3. Remind me that limits are checked on every answer, and suggest a title to try with search_titles from the child's key to confirm what is hidden.",
    },
];

impl PromptSpec {
    pub fn find(name: &str) -> Option<&'static PromptSpec> {
        PROMPTS.iter().find(|p| p.name == name)
    }

    /// The instructions with the arguments filled in. Fails with a sentence naming a
    /// missing required argument, or an argument the prompt does not have.
    pub fn render(
        &self,
        value: impl Fn(&str) -> Option<String>,
        given: &[&str],
    ) -> Result<String, String> {
        if let Some(unknown) = given
            .iter()
            .find(|g| !self.arguments.iter().any(|a| a.name == **g))
        {
            let valid: Vec<_> = self.arguments.iter().map(|a| a.name).collect();
            return Err(format!(
                "unknown argument \"{unknown}\" for prompt {}; valid arguments: {}",
                self.name,
                if valid.is_empty() {
                    "none".to_string()
                } else {
                    valid.join(", ")
                }
            ));
        }
        let mut text = self.template.to_string();
        for a in self.arguments {
            let v = match value(a.name).filter(|v| !v.trim().is_empty()) {
                Some(v) => v.chars().take(200).collect::<String>(),
                None if a.required => {
                    return Err(format!(
                        "prompt {} needs the argument \"{}\" ({})",
                        self.name, a.name, a.description
                    ));
                }
                None => "not given".to_string(),
            };
            text = text.replace(&format!("{{{}}}", a.name), &v);
        }
        let _ = write!(text, "\n\nTools to use: {}.", self.tools.join(", "));
        Ok(text)
    }
}

/// The prompts this caller may use: every tool a prompt names is visible to them.
pub fn usable(app: &App, caller: &Caller) -> Vec<&'static PromptSpec> {
    let visible = app.visible(caller);
    PROMPTS
        .iter()
        .filter(|p| !p.admin_only || caller.scope.household)
        .filter(|p| p.tools.iter().all(|t| visible.contains(t)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_prompt_names_registered_tools() {
        let registered = crate::tool_names();
        for p in PROMPTS {
            for t in p.tools {
                assert!(registered.contains(t), "{} names unknown tool {t}", p.name);
            }
        }
    }

    #[test]
    fn a_missing_required_argument_is_named() {
        let p = PromptSpec::find("request-media").unwrap();
        let err = p.render(|_| None, &[]).unwrap_err();
        assert_eq!(
            err,
            "prompt request-media needs the argument \"title\" (What the person asked for, in their words)"
        );
    }

    #[test]
    fn an_unknown_argument_lists_the_valid_ones() {
        let p = PromptSpec::find("library-health").unwrap();
        let err = p.render(|_| None, &["x"]).unwrap_err();
        assert_eq!(
            err,
            "unknown argument \"x\" for prompt library-health; valid arguments: none"
        );
    }

    #[test]
    fn arguments_fill_the_template_and_unset_ones_say_so() {
        let p = PromptSpec::find("request-media").unwrap();
        let text = p
            .render(|n| (n == "title").then(|| "Heat".to_string()), &["title"])
            .unwrap();
        assert!(text.starts_with("Help me request \"Heat\" (type: not given)."));
        assert!(text.ends_with("Tools to use: search_titles, get_title_details, get_request_options, request_media, check_request_status."));
    }
}

//! Argument completion: the values Marquee knows for a prompt argument or a resource
//! template variable, limited to what the caller's grant lets them see.

use domain::{KindFamily, MediaType};

use crate::{App, Caller, discover::ratings::Ladder, guides::Topic, prompts::PromptSpec};

/// What is being completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target<'a> {
    Prompt(&'a str),
    Resource(&'a str),
}

impl App {
    /// Values for `argument`, those starting with `typed` first, then those containing it.
    /// Empty for anything this caller cannot use.
    pub async fn complete(
        &self,
        caller: &Caller,
        target: Target<'_>,
        argument: &str,
        typed: &str,
    ) -> Result<Vec<String>, store::Error> {
        let values: Vec<String> = match target {
            Target::Resource("marquee://guides/{topic}") if argument == "topic" => {
                Topic::ALL.iter().map(|t| t.name().to_string()).collect()
            }
            Target::Resource(_) => Vec::new(),
            Target::Prompt(name) => {
                let usable = self.prompts(caller).await?;
                match PromptSpec::find(name) {
                    Some(p) if usable.iter().any(|u| u.name == p.name) => {
                        self.prompt_values(caller, argument).await?
                    }
                    _ => Vec::new(),
                }
            }
        };
        Ok(rank(values, typed))
    }

    async fn prompt_values(
        &self,
        caller: &Caller,
        argument: &str,
    ) -> Result<Vec<String>, store::Error> {
        Ok(match argument {
            "instance" => self
                .instances()
                .all()
                .iter()
                .filter(|i| i.kind.family() == KindFamily::Download)
                .filter(|i| crate::authority::covers(&caller.authority, &i.id))
                .map(|i| i.id.clone())
                .collect(),
            "media_type" => vec!["movie".into(), "tv".into()],
            // The built-in US ladder; other regions' lists come from the catalogue.
            "max_rating" => Ladder::us_fallback(MediaType::Movie)
                .map(|l| l.names().to_vec())
                .unwrap_or_default(),
            // People's names are for admins only.
            "person" if caller.is_admin() => self
                .store()
                .people()
                .await?
                .into_iter()
                .map(|p| p.name)
                .collect(),
            _ => Vec::new(),
        })
    }
}

/// Prefix matches first, then other matches, case-insensitively; order kept within each.
fn rank(values: Vec<String>, typed: &str) -> Vec<String> {
    let typed = typed.to_lowercase();
    let (mut first, rest): (Vec<_>, Vec<_>) = values
        .into_iter()
        .filter(|v| v.to_lowercase().contains(&typed))
        .partition(|v| v.to_lowercase().starts_with(&typed));
    first.extend(rest);
    first
}

#[cfg(test)]
mod tests {
    use super::rank;

    #[test]
    fn prefix_matches_come_before_inner_matches() {
        let v = ["tv-hd", "movies", "tv", "old-tv"]
            .map(String::from)
            .to_vec();
        assert_eq!(rank(v, "TV"), ["tv-hd", "tv", "old-tv"]);
    }
}

//! `download_subtitle`: a subtitle a search found, written beside its video inside a folder
//! instance as `Name.<lang>[.forced|.hi].srt` (`.ass` for ASS): converted to UTF-8, checked to
//! be SRT or ASS first (anything else is refused and nothing is written), never replacing a
//! file (an existing one is a conflict, checked before a download is spent too). A Bazarr
//! result is downloaded by Bazarr itself, beside its own copy of the video.

use adapters_folder::{Root, write};
use adapters_subtitles::text::{self, Checked};
use domain::{Capability, KindFamily};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    identity::folder_error,
    refs::{Held, What},
    source::Client,
    subtitles,
};
use governance::{Ctx, ErrorCode, Meta, Output, Tool, ToolError};

pub struct DownloadSubtitle;

const MAX_PATH: u32 = 4096;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// A subtitle_ref from search_subtitles.
    #[schemars(length(min = 1, max = 200))]
    pub subtitle_ref: String,
    /// The folder instance holding the video (not needed for a Bazarr result).
    #[serde(default)]
    #[schemars(length(min = 1, max = 64))]
    pub instance_id: Option<String>,
    /// The video, relative to the folder's root: the subtitle is written beside it.
    #[serde(default)]
    #[schemars(length(min = 1, max = MAX_PATH))]
    pub path: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Data {
    /// The subtitle instance it came from.
    pub service: String,
    pub language: String,
    pub hearing_impaired: bool,
    pub forced: bool,
    /// The folder instance and the file written (relative to its root); null when Bazarr
    /// downloads it.
    pub instance_id: Option<String>,
    pub written: Option<String>,
    /// srt or ass.
    pub format: Option<String>,
    /// What the file was written in before it was converted to UTF-8.
    pub converted_from: Option<String>,
    pub cues: Option<usize>,
    /// Downloads left today at the service, when it says.
    pub remaining_downloads: Option<i64>,
    /// Bazarr was asked to download it.
    pub by_bazarr: bool,
}

impl Tool for DownloadSubtitle {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Data>);
    const META: Meta = Meta {
        name: "download_subtitle",
        title: "Download a subtitle",
        description: "Downloads a subtitle search_subtitles found (subtitle_ref) and writes it beside the video (instance_id + path of the video in a folder instance) as Name.<lang>[.forced|.hi].srt, converted to UTF-8 and checked to be SRT or ASS first; a file that is not a subtitle is refused and nothing is written. An existing file is never replaced (a conflict). A Bazarr result is downloaded by Bazarr itself (instance_id and path are not needed). Each download counts against the service's daily quota.",
        effect: Effect::Write,
        capability: Capability::SubtitlesWrite,
        hints: governance::Hints {
            idempotent: false,
            open_world: true,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(KindFamily::Subtitles),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let all = subtitles(ctx);
        let person = ctx.caller.authority.person.id;
        let held = all.refs.look(&input.subtitle_ref, person).ok_or_else(|| {
            ToolError::new(
                ErrorCode::NotFound,
                "that subtitle_ref is not one of your current search results (references are yours alone and last a day); search_subtitles again",
            )
        })?;
        let source = all.get(&held.instance).ok_or_else(|| {
            ToolError::new(
                ErrorCode::NotFound,
                format!(
                    "the subtitle instance \"{}\" is no longer configured",
                    held.instance
                ),
            )
        })?;
        let service_allowed = ctx.authorize(&source.id)?;
        let mut data = Data {
            service: source.id.clone(),
            language: held.language.clone(),
            hearing_impaired: held.hearing_impaired,
            forced: held.forced,
            instance_id: None,
            written: None,
            format: None,
            converted_from: None,
            cues: None,
            remaining_downloads: None,
            by_bazarr: false,
        };
        match (source.client()?, &held.what) {
            (Client::Bazarr(b), What::Bazarr { target, offer }) => {
                service_allowed.write().ok_or_else(|| {
                    ToolError::denied("writing subtitles needs the subtitles.write capability")
                })?;
                b.download(*target, offer)
                    .await
                    .map_err(|e| source.error(&e))?;
                data.by_bazarr = true;
                let summary = format!(
                    "asked Bazarr \"{}\" to download the {} subtitle{}",
                    source.id,
                    held.language,
                    held.release
                        .as_deref()
                        .map(|r| format!(" ({r})"))
                        .unwrap_or_default()
                );
                Output::typed(summary, &data)
            }
            (Client::OpenSubtitles(os), What::File { file_id }) => {
                let (Some(instance), Some(video)) = (&input.instance_id, &input.path) else {
                    return Err(ToolError::invalid(
                        "instance_id and path are needed: the folder instance and the video the subtitle goes beside",
                    ));
                };
                let (spec, allowed) = ctx.instance(KindFamily::Files, Some(instance))?;
                allowed.write().ok_or_else(|| {
                    ToolError::denied("writing subtitles needs the subtitles.write capability")
                })?;
                let root_path = spec.path.clone().ok_or_else(|| {
                    ToolError::new(
                        ErrorCode::BackendMisconfigured,
                        format!("the folder instance \"{}\" has no path", spec.id),
                    )
                })?;
                // The video must be there, and the name free, before a download is spent.
                let first = target_name(video, &held, "srt")?;
                {
                    let (root_path, video, first) =
                        (root_path.clone(), video.clone(), first.clone());
                    let id = spec.id.clone();
                    blocking(move || {
                        let root =
                            Root::open(&root_path).map_err(|e| folder_error(&id, &video, e))?;
                        root.open_file(&video)
                            .map_err(|e| folder_error(&id, &video, e))?;
                        free(&root, &id, &first)
                    })
                    .await?;
                }
                let granted = os.download(*file_id).await.map_err(|e| source.error(&e))?;
                let bytes = os
                    .fetch(&granted.link, &ctx.settings().outbound(), source.timeouts())
                    .await
                    .map_err(|e| source.error(&e))?;
                data.remaining_downloads = granted.remaining;
                let checked: Checked = text::check(&bytes).map_err(|e| {
                    ToolError::new(
                        ErrorCode::Unsupported,
                        format!(
                            "the file the OpenSubtitles instance \"{}\" sent was refused: {e}; nothing was written",
                            source.id
                        ),
                    )
                })?;
                let name = target_name(video, &held, checked.format.extension())?;
                let id = spec.id.clone();
                let contents = checked.text.clone().into_bytes();
                let written = name.clone();
                blocking(move || {
                    let root =
                        Root::open(&root_path).map_err(|e| folder_error(&id, &written, e))?;
                    write::create_new_file(&root, &written, &contents)
                        .map_err(|e| write_error(&id, e))
                })
                .await?;
                data.instance_id = Some(spec.id.clone());
                data.written = Some(name.clone());
                data.format = Some(checked.format.extension().into());
                data.converted_from = Some(checked.encoding.as_str().into());
                data.cues = Some(checked.cues);
                let summary = format!(
                    "wrote {name} ({} cues, {}{}) in the folder instance \"{}\"",
                    checked.cues,
                    checked.format.extension().to_uppercase(),
                    match checked.encoding {
                        text::Encoding::Utf8 => String::new(),
                        other => format!(", converted from {} to UTF-8", other.as_str()),
                    },
                    spec.id
                );
                Output::typed(summary, &data)
            }
            _ => Err(ToolError::new(
                ErrorCode::Internal,
                "that subtitle_ref does not match its instance",
            )),
        }
    }
}

/// `Dir/Name.<lang>[.forced|.hi].<ext>` beside `video`.
fn target_name(video: &str, held: &Held, ext: &str) -> Result<String, ToolError> {
    let (dir, file) = match video.rsplit_once('/') {
        Some((d, f)) => (Some(d), f),
        None => (None, video),
    };
    let stem = file.rsplit_once('.').map_or(file, |(s, _)| s);
    if stem.is_empty() {
        return Err(ToolError::invalid("path names no video file"));
    }
    let mut name = format!("{stem}.{}", held.language);
    if held.forced {
        name.push_str(".forced");
    } else if held.hearing_impaired {
        name.push_str(".hi");
    }
    name.push('.');
    name.push_str(ext);
    Ok(match dir {
        Some(d) => format!("{d}/{name}"),
        None => name,
    })
}

/// Refuses when something is at `rel` already.
fn free(root: &Root, instance: &str, rel: &str) -> Result<(), ToolError> {
    match write::identity(root, rel) {
        Ok(None) => Ok(()),
        Ok(Some(_)) => Err(exists(instance, rel)),
        Err(e) => Err(write_error(instance, e)),
    }
}

fn exists(instance: &str, rel: &str) -> ToolError {
    ToolError::new(
        ErrorCode::Conflict,
        format!("{rel} already exists in the folder instance \"{instance}\"; nothing is replaced"),
    )
}

fn write_error(instance: &str, e: write::WriteError) -> ToolError {
    match e {
        write::WriteError::Exists { path } => exists(instance, &path),
        other => ToolError::new(
            ErrorCode::BackendError,
            format!("writing in the folder instance \"{instance}\" failed: {other}"),
        ),
    }
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ToolError> + Send + 'static,
) -> Result<T, ToolError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|_| ToolError::new(ErrorCode::Internal, "the folder could not be written"))?
}

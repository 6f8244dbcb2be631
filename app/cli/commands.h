#pragma once
// folio-cli subcommands. Each takes argv from the word after the subcommand's name and returns the
// process exit code; errors are thrown as folio::Error and printed by main as one line on stderr.
namespace folio::cli {

int run_generate(int argc, char** argv, int first);  // cmd_generate.cpp
int run_chat(int argc, char** argv, int first);      // cmd_chat.cpp
int run_tokenize(int argc, char** argv, int first);  // cmd_tokenize.cpp
int run_template(int argc, char** argv, int first);  // cmd_template.cpp
int run_perplexity(int argc, char** argv, int first);  // cmd_perplexity.cpp
int run_detokenize(int argc, char** argv, int first);  // cmd_detokenize.cpp
int run_pull(int argc, char** argv, int first);      // cmd_pull.cpp
int run_models(int argc, char** argv, int first);    // cmd_models.cpp
int run_rm(int argc, char** argv, int first);        // cmd_rm.cpp
int run_export(int argc, char** argv, int first);    // cmd_export.cpp

}  // namespace folio::cli

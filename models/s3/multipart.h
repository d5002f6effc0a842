// Multipart uploads on a storage node, S3's way: initiate (POST ?uploads)
// records the upload in filecoingw_s3.MultipartUploads with this node as
// its coordinator; parts (PUT ?partNumber=N&uploadId=U) may land on any
// node, which keeps the bytes and answers with an ETag naming where they
// are ("kuri-2:7002/bafk..."; ETags are opaque to clients); complete (POST
// ?uploadId=U, the body listing parts and ETags) runs on the coordinator,
// which gathers the parts (its own, and others' over GET /_parts/U/N) into
// the object; abort (DELETE ?uploadId=U) marks the upload aborted.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fakes/network.h"
#include "fakes/volume.h"
#include "models/cql/client.h"
#include "models/s3/s3.h"

namespace faultline::models::s3 {

// "a=1&b=two" -> the value of `name`, if present.
std::optional<std::string> QueryParameter(std::string_view query, std::string_view name);

// The parts a CompleteMultipartUpload body lists: (part number, ETag).
std::vector<std::pair<int, std::string>> ParseCompleteBody(std::string_view body);
// The body a client sends to complete an upload with these parts.
std::string CompleteBody(const std::vector<std::pair<int, std::string>>& parts);

class NodeMultipart {
 public:
  NodeMultipart(fakes::Network& network, cql::CqlSession& session, fakes::Volume* data,
                std::string node_id, fakes::Endpoint self, std::uint32_t incarnation)
      : network_(network),
        session_(session),
        data_(data),
        node_id_(std::move(node_id)),
        self_(std::move(self)),
        incarnation_(incarnation) {}

  sim::Awaitable<fakes::Response> Initiate(ObjectPath object);
  // 404 NoSuchUpload unless the upload is open.
  sim::Awaitable<fakes::Response> UploadPart(std::string upload_id, int part, std::string body);
  // The object's bytes from the parts the body lists, or the error to answer.
  sim::Awaitable<sim::Result<std::string>> Assemble(const std::string& upload_id,
                                                    const std::string& body);
  // Abort: open -> aborted, atomically (a lightweight transaction); 404
  // NoSuchUpload when it is unknown, aborted, completing or complete.
  sim::Awaitable<fakes::Response> Abort(const std::string& upload_id);

  // Completion claims the upload first (open -> completing), so that an
  // abort cannot slip in between storing the object and recording it; then
  // the object is stored and the claim finished (completing -> complete),
  // or released (completing -> open) when storing failed.
  enum class Claim : unsigned char {
    kClaimed,          // Ours (or a crashed or concurrent completion's): go on.
    kAlreadyComplete,  // Done before: answer 200 again.
    kNoSuchUpload,     // Unknown or aborted: 404.
  };
  sim::Awaitable<sim::Result<Claim>> ClaimForCompletion(const std::string& upload_id);
  sim::Awaitable<fakes::Response> FinishCompletion(const std::string& upload_id);
  sim::Awaitable<void> ReleaseClaim(const std::string& upload_id);
  // GET /_parts/U/N from another node.
  fakes::Response ServePart(const std::string& path) const;

 private:
  std::string PartPath(const std::string& upload_id, int part) const;
  // The upload's status ("open", "complete", "aborted"), empty when unknown.
  sim::Awaitable<sim::Result<std::string>> Status(const std::string& upload_id);
  // Sets `to` if the status is `from`: the status found when not applied
  // (empty for an unknown upload), nullopt when applied.
  sim::Awaitable<sim::Result<std::optional<std::string>>> Transition(const std::string& upload_id,
                                                                     std::string from,
                                                                     std::string to);

  fakes::Network& network_;
  cql::CqlSession& session_;
  fakes::Volume* data_;
  std::string node_id_;
  fakes::Endpoint self_;
  std::uint32_t incarnation_;
  std::uint64_t next_upload_ = 0;
};

}  // namespace faultline::models::s3

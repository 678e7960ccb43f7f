"""gen_hf.py - the Hugging Face families users export, as torch 2.14 exports them
(issue 59), into the real-torch corpus: test/real/corpus/2.14/hf_<family>/.

    scripts/real-torch.sh --torch 2.14 run test/real/gen_hf.py [FAMILY...]

Each model is built by transformers (Debian sid's python3-transformers) from a tiny
config (2 layers, hidden 32, vocabulary 96: no hub here; FAMILIES, the text models, and
VISION, the image and audio ones), its weights set by thin.fill()
so that the archives are stored thin, and exported as users do: torch.export.export
(non-strict) with a dynamic batch and sequence (named Dims shared by the token ids and the
attention mask; for the AUTO families also Dim.AUTO, as hf_<family>_auto), in the default IR
and after run_decompositions(), by gen_corpus.export_case,
which also stores torch's outputs at the ranges' ends and the sample (zoo_runs).  The model
is wrapped to return one tensor (logits, or the last hidden state) and runs without a KV
cache (use_cache=False; generation with a cache is issue 61's corpus).

Token ids are drawn below the vocabulary's size; the mask is all ones in the runs and has
padding at the end of the sample's second row."""
import os
import sys
import traceback

import torch
from torch.export import Dim

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_corpus  # noqa: E402
import thin  # noqa: E402

VOCAB = 96
HIDDEN = 32
EAGER = ("bloom", "t5_encoder", "t5", "deberta_v2", "convnext", "swin", "segformer", "gptj", "resnet", "mobilevit", "convnextv2",
         "levit")
# a sequence range other than [2, 64], where torch's export asks for one (its suggested fix)
SEQ = {"bart": dict(min=3, max=64), "mobilebert": dict(min=3, max=64), "gemma3": dict(max=14), "llama4": dict(max=62)}
# the families: (name, config class, model class, extra config, output field, takes a mask)
FAMILIES = [
    ("gpt2", "GPT2Config", "GPT2LMHeadModel",
     dict(n_embd=HIDDEN, n_layer=2, n_head=4, n_positions=128), "logits", True),
    ("bert", "BertConfig", "BertModel",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
          max_position_embeddings=128), "last_hidden_state", True),
    ("distilbert", "DistilBertConfig", "DistilBertModel",
     dict(dim=HIDDEN, n_layers=2, n_heads=4, hidden_dim=64, max_position_embeddings=128), "last_hidden_state", True),
    ("llama", "LlamaConfig", "LlamaForCausalLM",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
          intermediate_size=64, max_position_embeddings=128), "logits", True),
    # Llama 4's text model: rotary embeddings in complex numbers, a mixture of experts
    ("llama4", "Llama4TextConfig", "Llama4ForCausalLM",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=8,
          intermediate_size=64, intermediate_size_mlp=64, num_local_experts=2, num_experts_per_tok=1,
          max_position_embeddings=128, interleave_moe_layer_step=2, attention_chunk_size=64), "logits", True),
    ("qwen2", "Qwen2Config", "Qwen2ForCausalLM",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
          intermediate_size=64, max_position_embeddings=128), "logits", True),
    ("roberta", "RobertaConfig", "RobertaModel",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
          max_position_embeddings=130, pad_token_id=1), "last_hidden_state", True),
    ("albert", "AlbertConfig", "AlbertModel",
     dict(hidden_size=HIDDEN, embedding_size=16, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
          max_position_embeddings=128), "last_hidden_state", True),
    ("electra", "ElectraConfig", "ElectraModel",
     dict(hidden_size=HIDDEN, embedding_size=16, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
          max_position_embeddings=128), "last_hidden_state", True),
    ("convbert", "ConvBertConfig", "ConvBertModel",
     dict(hidden_size=HIDDEN, embedding_size=16, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
          max_position_embeddings=128, conv_kernel_size=5), "last_hidden_state", True),
    ("fnet", "FNetConfig", "FNetModel",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, intermediate_size=64, max_position_embeddings=128),
     "last_hidden_state", False),
    ("mistral", "MistralConfig", "MistralForCausalLM",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
          intermediate_size=64, max_position_embeddings=128, sliding_window=None), "logits", True),
    ("qwen3", "Qwen3Config", "Qwen3ForCausalLM",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=8,
          intermediate_size=64, max_position_embeddings=128), "logits", True),
    ("gemma", "GemmaConfig", "GemmaForCausalLM",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=1, head_dim=8,
          intermediate_size=64, max_position_embeddings=128), "logits", True),
    ("phi3", "Phi3Config", "Phi3ForCausalLM",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=4,
          intermediate_size=64, max_position_embeddings=128, pad_token_id=0), "logits", True),
    ("phi", "PhiConfig", "PhiForCausalLM",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
          max_position_embeddings=128), "logits", True),
    ("gpt_neox", "GPTNeoXConfig", "GPTNeoXForCausalLM",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
          max_position_embeddings=128), "logits", True),
    ("opt", "OPTConfig", "OPTForCausalLM",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, ffn_dim=64, word_embed_proj_dim=HIDDEN,
          max_position_embeddings=128, pad_token_id=1), "logits", True),
    ("bloom", "BloomConfig", "BloomForCausalLM",
     dict(hidden_size=HIDDEN, n_layer=2, n_head=4), "logits", True),
    # funnel, canine (a sequence torch specializes to the sample's) and xlnet (guards torch's
    # export cannot state for a dynamic sequence) are refused by torch.export itself
    # falcon: torch 2.14 exports it but torch.export.save fails (SerializeError: a
    # flat_apply node's TreeSpec), so users cannot hand it to any AOT compiler
    ("mixtral", "MixtralConfig", "MixtralForCausalLM",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
          intermediate_size=64, max_position_embeddings=128, num_local_experts=4, num_experts_per_tok=2,
          sliding_window=None), "logits", True),
    ("t5_encoder", "T5Config", "T5EncoderModel",
     dict(d_model=HIDDEN, d_kv=8, d_ff=64, num_layers=2, num_heads=4, relative_attention_num_buckets=8),
     "last_hidden_state", True),
    ("modernbert", "ModernBertConfig", "ModernBertModel",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
          max_position_embeddings=128, global_attn_every_n_layers=2, local_attention=16, pad_token_id=0,
          eos_token_id=1, bos_token_id=2, cls_token_id=3, sep_token_id=4), "last_hidden_state", True),
    ("deberta_v2", "DebertaV2Config", "DebertaV2Model",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
          max_position_embeddings=128, relative_attention=True, position_buckets=16, pos_att_type=["p2c", "c2p"]),
     "last_hidden_state", True),
    ("gemma2", "Gemma2Config", "Gemma2ForCausalLM",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=8,
          intermediate_size=64, max_position_embeddings=128, sliding_window=128), "logits", True),
    ("gemma3", "Gemma3TextConfig", "Gemma3ForCausalLM",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=8,
          intermediate_size=64, max_position_embeddings=128, sliding_window=16), "logits", True),
    ("xlm_roberta", "XLMRobertaConfig", "XLMRobertaModel",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
          max_position_embeddings=130, pad_token_id=1), "last_hidden_state", True),
    ("mobilebert", "MobileBertConfig", "MobileBertModel",
     dict(hidden_size=HIDDEN, embedding_size=16, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
          intra_bottleneck_size=16, max_position_embeddings=128, num_feedforward_networks=2), "last_hidden_state", True),
    ("gptj", "GPTJConfig", "GPTJForCausalLM",
     dict(n_embd=HIDDEN, n_layer=2, n_head=4, rotary_dim=4, n_positions=128), "logits", True),
    ("gpt_bigcode", "GPTBigCodeConfig", "GPTBigCodeForCausalLM",
     dict(n_embd=HIDDEN, n_layer=2, n_head=4, n_positions=128, multi_query=True), "logits", True),
    ("starcoder2", "Starcoder2Config", "Starcoder2ForCausalLM",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
          intermediate_size=64, max_position_embeddings=128, sliding_window=None), "logits", True),
    ("olmo2", "Olmo2Config", "Olmo2ForCausalLM",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
          intermediate_size=64, max_position_embeddings=128), "logits", True),
    ("stablelm", "StableLmConfig", "StableLmForCausalLM",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
          intermediate_size=64, max_position_embeddings=128), "logits", True),
    ("granite", "GraniteConfig", "GraniteForCausalLM",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
          intermediate_size=64, max_position_embeddings=128), "logits", True),
    ("cohere", "CohereConfig", "CohereForCausalLM",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
          intermediate_size=64, max_position_embeddings=128), "logits", True),
    ("qwen2_moe", "Qwen2MoeConfig", "Qwen2MoeForCausalLM",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
          intermediate_size=64, max_position_embeddings=128, moe_intermediate_size=32, shared_expert_intermediate_size=32, num_experts=4, num_experts_per_tok=2), "logits", True),
    ("olmoe", "OlmoeConfig", "OlmoeForCausalLM",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
          intermediate_size=64, max_position_embeddings=128, num_experts=4, num_experts_per_tok=2), "logits", True),
    ("phimoe", "PhimoeConfig", "PhimoeForCausalLM",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
          intermediate_size=64, max_position_embeddings=128, num_local_experts=4, num_experts_per_tok=2, sliding_window=None), "logits", True),
    ("nemotron", "NemotronConfig", "NemotronForCausalLM",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
          intermediate_size=64, max_position_embeddings=128, head_dim=8), "logits", True),
    ("persimmon", "PersimmonConfig", "PersimmonForCausalLM",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
          intermediate_size=64, max_position_embeddings=128), "logits", True),
    ("helium", "HeliumConfig", "HeliumForCausalLM",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
          intermediate_size=64, max_position_embeddings=128, head_dim=8), "logits", True),
    ("glm", "GlmConfig", "GlmForCausalLM",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
          intermediate_size=64, pad_token_id=0, max_position_embeddings=128, head_dim=8), "logits", True),
    ("smollm3", "SmolLM3Config", "SmolLM3ForCausalLM",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
          intermediate_size=64, pad_token_id=0, max_position_embeddings=128), "logits", True),
    ("olmo", "OlmoConfig", "OlmoForCausalLM",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
          intermediate_size=64, max_position_embeddings=128), "logits", True),
    ("diffllama", "DiffLlamaConfig", "DiffLlamaForCausalLM",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
          intermediate_size=64, max_position_embeddings=128), "logits", True),
    ("granitemoe", "GraniteMoeConfig", "GraniteMoeForCausalLM",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
          intermediate_size=64, max_position_embeddings=128, num_local_experts=4, num_experts_per_tok=2), "logits", True),
    ("jetmoe", "JetMoeConfig", "JetMoeForCausalLM",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_key_value_heads=2, kv_channels=8, intermediate_size=64,
          max_position_embeddings=128, num_local_experts=4, num_experts_per_tok=2), "logits", True),
    ("minimax", "MiniMaxConfig", "MiniMaxForCausalLM",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=8,
          intermediate_size=64, max_position_embeddings=128, num_local_experts=4, num_experts_per_tok=2), "logits", True),
    ("xlm", "XLMConfig", "XLMWithLMHeadModel",
     dict(emb_dim=HIDDEN, n_layers=2, n_heads=4, max_position_embeddings=128), "logits", True),
    ("gpt_neo", "GPTNeoConfig", "GPTNeoForCausalLM",
     dict(hidden_size=HIDDEN, num_layers=2, num_heads=4, attention_types=[[["global", "local"], 1]], window_size=16,
          max_position_embeddings=128), "logits", True),
    ("codegen", "CodeGenConfig", "CodeGenForCausalLM",
     dict(n_embd=HIDDEN, n_layer=2, n_head=4, rotary_dim=4, n_positions=128), "logits", True),
    ("biogpt", "BioGptConfig", "BioGptForCausalLM",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
          max_position_embeddings=128), "logits", True),
    ("xglm", "XGLMConfig", "XGLMForCausalLM",
     dict(d_model=HIDDEN, num_layers=2, attention_heads=4, ffn_dim=64, max_position_embeddings=128), "logits", True),
    ("mpnet", "MPNetConfig", "MPNetModel",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
          max_position_embeddings=130), "last_hidden_state", True),
    ("roformer", "RoFormerConfig", "RoFormerModel",
     dict(hidden_size=HIDDEN, embedding_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
          max_position_embeddings=128), "last_hidden_state", True),
    ("squeezebert", "SqueezeBertConfig", "SqueezeBertModel",
     dict(hidden_size=HIDDEN, embedding_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
          max_position_embeddings=128), "last_hidden_state", True),
    ("ibert", "IBertConfig", "IBertModel",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
          max_position_embeddings=130), "last_hidden_state", True),
    ("bart", "BartConfig", "BartModel",
     dict(d_model=HIDDEN, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4,
          encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=128), "last_hidden_state", True),
    ("clip_text", "CLIPTextConfig", "CLIPTextModel",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
          max_position_embeddings=128), "last_hidden_state", True),
]

# vision and audio: (name, config class, model class, extra config, output field, input shape
# after the batch); the batch is dynamic, the image or audio size static (position
# embeddings of a fixed length), as users export them
IMAGE = dict(image_size=32, patch_size=8, num_channels=3)
VISION = [
    ("vit", "ViTConfig", "ViTModel", dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4,
                                          intermediate_size=64, **IMAGE), "last_hidden_state", [3, 32, 32]),
    ("deit", "DeiTConfig", "DeiTModel", dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4,
                                             intermediate_size=64, **IMAGE), "last_hidden_state", [3, 32, 32]),
    ("dinov2", "Dinov2Config", "Dinov2Model", dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4,
                                                   mlp_ratio=2, **IMAGE), "last_hidden_state", [3, 32, 32]),
    ("clip_vision", "CLIPVisionConfig", "CLIPVisionModel",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, **IMAGE),
     "last_hidden_state", [3, 32, 32]),
    ("siglip_vision", "SiglipVisionConfig", "SiglipVisionModel",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, **IMAGE),
     "last_hidden_state", [3, 32, 32]),
    ("swin", "SwinConfig", "SwinModel",
     dict(image_size=32, patch_size=2, num_channels=3, embed_dim=16, depths=[1, 1], num_heads=[2, 2], window_size=4),
     "last_hidden_state", [3, 32, 32]),
    ("convnext", "ConvNextConfig", "ConvNextModel",
     dict(num_channels=3, num_stages=2, hidden_sizes=[16, 32], depths=[1, 1], patch_size=4), "last_hidden_state", [3, 32, 32]),
    ("segformer", "SegformerConfig", "SegformerModel",
     dict(num_channels=3, num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1], hidden_sizes=[16, 32],
          patch_sizes=[7, 3], strides=[4, 2], num_attention_heads=[1, 2], mlp_ratios=[2, 2]),
     "last_hidden_state", [3, 32, 32]),
    ("beit", "BeitConfig", "BeitModel", dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4,
                                             intermediate_size=64, use_relative_position_bias=True, **IMAGE),
     "last_hidden_state", [3, 32, 32]),
    ("resnet", "ResNetConfig", "ResNetModel", dict(num_channels=3, embedding_size=16, hidden_sizes=[16, 32],
                                                   depths=[1, 1], layer_type="bottleneck"), "last_hidden_state", [3, 32, 32]),
    ("mobilevit", "MobileViTConfig", "MobileViTModel",
     dict(num_channels=3, image_size=32, patch_size=2, hidden_sizes=[16, 24, 32], neck_hidden_sizes=[8, 8, 16, 16, 24, 24, 32],
          num_attention_heads=2), "last_hidden_state", [3, 32, 32]),
    ("convnextv2", "ConvNextV2Config", "ConvNextV2Model",
     dict(num_channels=3, num_stages=2, hidden_sizes=[16, 32], depths=[1, 1], patch_size=4), "last_hidden_state", [3, 32, 32]),
    ("levit", "LevitConfig", "LevitModel",
     dict(image_size=32, num_channels=3, hidden_sizes=[16, 32, 48], num_attention_heads=[1, 2, 3], depths=[1, 1, 1],
          key_dim=[8, 8, 8], patch_size=16, stride=2, kernel_size=3, down_ops=[["Subsample", 8, 1, 4, 2, 2], ["Subsample", 8, 2, 4, 2, 2]]),
     "last_hidden_state", [3, 32, 32]),
    ("yolos", "YolosConfig", "YolosModel", dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4,
                                                intermediate_size=64, image_size=[32, 32], patch_size=8, num_channels=3,
                                                num_detection_tokens=4), "last_hidden_state", [3, 32, 32]),
    ("poolformer", "PoolFormerConfig", "PoolFormerModel",
     dict(num_channels=3, num_encoder_blocks=2, depths=[1, 1], hidden_sizes=[16, 32], patch_sizes=[7, 3], strides=[4, 2],
          padding=[2, 1], pool_size=3, mlp_ratio=2.0), "last_hidden_state", [3, 32, 32]),
    ("pvt_v2", "PvtV2Config", "PvtV2Model",
     dict(num_channels=3, num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1], hidden_sizes=[16, 32],
          patch_sizes=[7, 3], strides=[4, 2], num_attention_heads=[1, 2], mlp_ratios=[2, 2]), "last_hidden_state", [3, 32, 32]),
    ("regnet", "RegNetConfig", "RegNetModel",
     dict(num_channels=3, embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1], groups_width=8), "last_hidden_state", [3, 32, 32]),
    ("bit", "BitConfig", "BitModel",
     dict(num_channels=3, embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1], layer_type="bottleneck", num_groups=4),
     "last_hidden_state", [3, 32, 32]),
    ("focalnet", "FocalNetConfig", "FocalNetModel",
     dict(image_size=32, patch_size=4, num_channels=3, embed_dim=16, depths=[1, 1], focal_levels=[2, 2],
          focal_windows=[3, 3]), "last_hidden_state", [3, 32, 32]),
    ("swinv2", "Swinv2Config", "Swinv2Model",
     dict(image_size=32, patch_size=2, num_channels=3, embed_dim=16, depths=[1, 1], num_heads=[2, 2], window_size=4),
     "last_hidden_state", [3, 32, 32]),
    ("mobilenet_v2", "MobileNetV2Config", "MobileNetV2Model",
     dict(num_channels=3, image_size=32, depth_multiplier=0.35), "last_hidden_state", [3, 32, 32]),
    ("data2vec_vision", "Data2VecVisionConfig", "Data2VecVisionModel",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
          use_relative_position_bias=True, **IMAGE), "last_hidden_state", [3, 32, 32]),
    ("hubert", "HubertConfig", "HubertModel",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
          conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=16,
          num_conv_pos_embedding_groups=4), "last_hidden_state", [400]),
    ("wavlm", "WavLMConfig", "WavLMModel",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
          conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=16,
          num_conv_pos_embedding_groups=4, num_buckets=16, max_bucket_distance=32), "last_hidden_state", [400]),
    ("data2vec_audio", "Data2VecAudioConfig", "Data2VecAudioModel",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
          conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=16,
          num_conv_pos_embedding_groups=4, conv_pos_kernel_size=5, num_conv_pos_embeddings_layers=1), "last_hidden_state", [400]),
    ("ast", "ASTConfig", "ASTModel",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, patch_size=8,
          frequency_stride=8, time_stride=8, max_length=32, num_mel_bins=16), "last_hidden_state", [32, 16]),
    ("whisper_encoder", "WhisperConfig", "WhisperEncoderWrapper",
     dict(d_model=HIDDEN, encoder_layers=2, encoder_attention_heads=4, encoder_ffn_dim=64, num_mel_bins=16,
          max_source_positions=20, decoder_layers=1, decoder_attention_heads=4, decoder_ffn_dim=64),
     "last_hidden_state", [16, 40]),
    ("wav2vec2", "Wav2Vec2Config", "Wav2Vec2Model",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
          conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=16,
          num_conv_pos_embedding_groups=4), "last_hidden_state", [400]),
    ("wav2vec2_conformer", "Wav2Vec2ConformerConfig", "Wav2Vec2ConformerModel",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
          conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=16,
          num_conv_pos_embedding_groups=4, conv_depthwise_kernel_size=7, position_embeddings_type="rotary"),
     "last_hidden_state", [400]),
    ("sew_d", "SEWDConfig", "SEWDModel",
     dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
          conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=16,
          num_conv_pos_embedding_groups=4, squeeze_factor=2, max_position_embeddings=64, position_buckets=16),
     "last_hidden_state", [400]),
]


# encoder-decoders with their decoder's own token ids (a sequence of its own length)
SEQ2SEQ = [
    ("t5", "T5Config", "T5Model",
     dict(d_model=HIDDEN, d_kv=8, d_ff=64, num_layers=2, num_decoder_layers=2, num_heads=4,
          relative_attention_num_buckets=8, decoder_start_token_id=0), "last_hidden_state"),
    ("whisper", "WhisperConfig", "WhisperModel",
     dict(d_model=HIDDEN, encoder_layers=2, encoder_attention_heads=4, encoder_ffn_dim=64, num_mel_bins=16,
          max_source_positions=20, decoder_layers=2, decoder_attention_heads=4, decoder_ffn_dim=64,
          max_target_positions=64, pad_token_id=0, bos_token_id=1, eos_token_id=2, decoder_start_token_id=3),
     "last_hidden_state"),
]


def attention(name, model_cls):
    """sdpa where transformers has it for the class (what users get by default), else the
    model's own attention; EAGER lists the families kept on their own attention."""
    import transformers

    return "sdpa" if name not in EAGER and getattr(getattr(transformers, model_cls), "_supports_sdpa", False) else "eager"


class EncoderDecoder(torch.nn.Module):
    """The decoder's last hidden state for the encoder's input and the decoder's token ids."""

    def __init__(self, model, field, audio):
        super().__init__()
        self.model, self.field, self.audio = model, field, audio

    def forward(self, x, decoder_input_ids, attention_mask=None):
        if self.audio:
            out = self.model(input_features=x, decoder_input_ids=decoder_input_ids, use_cache=False)
        else:
            out = self.model(input_ids=x, attention_mask=attention_mask, decoder_input_ids=decoder_input_ids,
                             use_cache=False)
        return getattr(out, self.field)


def seq2seq_case(family):
    import transformers

    name, config_cls, model_cls, extra, field = family
    config = getattr(transformers, config_cls)(vocab_size=VOCAB, **extra)
    config._attn_implementation = attention(name, model_cls)
    model = getattr(transformers, model_cls)(config).eval()
    recipes = thin.fill(model)
    batch, tgt = Dim("batch", max=16), Dim("tgt", max=32)
    dec = ((torch.arange(2 * 5) * 7919 + 11) % VOCAB).reshape(2, 5)
    if name == "whisper":  # 16 mel bins, 40 frames (the encoder's 20 positions after its stride)
        x = gen_corpus.filled([2, 16, 40], 0)
        return ("hf_" + name, EncoderDecoder(model, field, True).eval(), (x, dec), ({0: batch}, {0: batch, 1: tgt}),
                {1: (0, VOCAB - 1)}, recipes)
    ids = ((torch.arange(2 * 7) * 7919 + 5) % VOCAB).reshape(2, 7)
    attn = torch.ones(2, 7, dtype=torch.int64)
    attn[1, 5:] = 0
    seq = Dim("seq", max=64)
    return ("hf_" + name, EncoderDecoder(model, field, False).eval(), (ids, dec, attn),
            ({0: batch, 1: seq}, {0: batch, 1: tgt}, {0: batch, 1: seq}), {0: (0, VOCAB - 1), 1: (0, VOCAB - 1), 2: (1, 1)},
            recipes)


class OneInput(torch.nn.Module):
    """A vision or audio model's one tensor output for its one input."""

    def __init__(self, model, field):
        super().__init__()
        self.model, self.field = model, field

    def forward(self, x):
        return getattr(self.model(x), self.field)


def vision_case(family):
    import transformers

    name, config_cls, model_cls, extra, field, shape = family
    config = getattr(transformers, config_cls)(**extra)
    config._attn_implementation = attention(name, "WhisperModel" if model_cls == "WhisperEncoderWrapper" else model_cls)
    if model_cls == "WhisperEncoderWrapper":  # the encoder of the speech-to-text model
        model = transformers.WhisperModel(config).get_encoder().eval()
    else:
        model = getattr(transformers, model_cls)(config).eval()
    recipes = thin.fill(model)
    x = gen_corpus.filled([2] + shape, 0)
    return "hf_" + name, OneInput(model, field).eval(), (x,), ({0: Dim("batch", max=16)},), {}, recipes


class OneOutput(torch.nn.Module):
    """The model's one tensor output (a ModelOutput is a dict to torch.export)."""

    def __init__(self, model, field, mask):
        super().__init__()
        self.model, self.field, self.mask = model, field, mask

    def forward(self, input_ids, attention_mask=None):
        kw = {"attention_mask": attention_mask} if self.mask else {}
        out = self.model(input_ids=input_ids, use_cache=False, **kw) if "use_cache" in self.model.forward.__code__.co_varnames \
            else self.model(input_ids=input_ids, **kw)
        return getattr(out, self.field)


def case(family):
    import transformers

    name, config_cls, model_cls, extra, field, mask = family
    config = getattr(transformers, config_cls)(vocab_size=VOCAB, **extra)
    # sdpa where transformers has it (what users get by default); the others' own attention
    config._attn_implementation = attention(name, model_cls)
    model = getattr(transformers, model_cls)(config).eval()
    recipes = thin.fill(model)
    ids = ((torch.arange(2 * 7) * 7919 + 5) % VOCAB).reshape(2, 7)
    batch, seq = Dim("batch", max=16), Dim("seq", **SEQ.get(name, dict(max=64)))
    if mask:
        attn = torch.ones(2, 7, dtype=torch.int64)
        attn[1, 5:] = 0  # the second row padded at its end
        args, ds = (ids, attn), ({0: batch, 1: seq}, {0: batch, 1: seq})
        ranges = {0: (0, VOCAB - 1), 1: (1, 1)}
    else:
        args, ds, ranges = (ids,), ({0: batch, 1: seq},), {0: (0, VOCAB - 1)}
    return "hf_" + name, OneOutput(model, field, mask).eval(), args, ds, ranges, recipes


# families also exported with Dim.AUTO on every dynamic dim (hf_<name>_auto): torch then
# decides the dims and ranges itself, as for users who do not name them
AUTO = ("gpt2", "bert", "llama", "qwen3", "t5", "whisper", "vit", "wav2vec2")


def auto_dims(ds):
    """The same dims, each Dim.AUTO."""
    return tuple({d: Dim.AUTO for d in spec} if spec else spec for spec in ds)


def main(names):
    counts = {}
    jobs = [(f, False) for f in FAMILIES + VISION + SEQ2SEQ] + \
           [(f, True) for f in FAMILIES + VISION + SEQ2SEQ if f[0] in AUTO]
    for family, auto in jobs:
        label = family[0] + ("_auto" if auto else "")
        if names and label not in names:
            continue
        torch.manual_seed(0)
        try:
            make = case if family in FAMILIES else vision_case if family in VISION else seq2seq_case
            name, module, args, ds, ranges, recipes = make(family)
            if auto:
                name, ds = name + "_auto", auto_dims(ds)
            verdict = gen_corpus.export_and_thin(name, module, args, ds, {}, recipes, ranges)
        except Exception:  # noqa: BLE001 - a generator bug, not torch's verdict
            traceback.print_exc()
            verdict = "generator-error"
        counts[verdict] = counts.get(verdict, 0) + 1
        print(f"hf {label}: {verdict}", flush=True)
    print(f"torch {torch.__version__}: {counts}")


if __name__ == "__main__":
    main(sys.argv[1:])
